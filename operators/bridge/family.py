"""The adapter of one recipe section on the Blender side: what every family's sidebar, operators, Auto
Update and look-ups ask of it.

``core.recipe.SECTIONS`` lists the sections a recipe holds; :mod:`.sections` lists one :class:`Adapter`
per section, made from the section's limits table:

* the settings on the scene (``scene.worldseed.<key>``) and their property group, generated from the
  limits table (:meth:`Adapter.settings_classes`; the same properties make an Add operator's redo panel,
  :meth:`Adapter.props`);
* sidebar -> spec: the settings as plain recipe tables (:meth:`Adapter.tables`), read once by the
  section's own reader (:meth:`Adapter.spec`: one validation, no dict round trip); and back
  (:meth:`Adapter.load`);
* the objects it builds: their tag (:attr:`Adapter.kind`), the root of any of them (:meth:`Adapter.root`),
  the spec stored on a root (:meth:`Adapter.stored`), and a rebuild in place from the sidebar
  (:meth:`Adapter.rebuild_plan`: progress-worthy or not, and the steps);
* what a headless world build makes of the section (:meth:`Adapter.build`).

A family with extras overrides the method they concern: the terrain's layer lists (:meth:`tables`),
the levels' text fields (:meth:`Adapter.table`).  Everything here reads ``self.section``, so an adapter
is a handful of names and the methods its family does differently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import bpy

from ...core import recipe as core_recipe
from ...core.errors import ParameterError
from ...core.steps import Steps, drive
from .properties import (
    SHOWN_KINDS,
    PropertyDef,
    Settings,
    Update,
    apply_spec,
    attrs_table,
    props_from_limits,
    scene_settings,
)
from .query import is_kind, root_of

if TYPE_CHECKING:
    from ...core.recipe import Recipe
    from .world import World

__all__ = ["Adapter", "Plan", "SECTION_BY_KEY", "MODAL_VERTICES", "modal_vertices", "settings_class", "auto_props"]

SECTION_BY_KEY = {s.key: s for s in core_recipe.SECTIONS}
#: Builds with more vertices than this run modally, with progress and Esc to cancel
#: (the add-on preferences can change it).
MODAL_VERTICES = 600_000


def modal_vertices() -> int:
    """The preferences' threshold above which builds show progress (or :data:`MODAL_VERTICES`)."""
    root = __package__.rpartition(".")[0].rpartition(".")[0]  # the extension: <root>.operators.bridge
    preferences = bpy.context.preferences
    addon = preferences.addons.get(root) if preferences is not None else None
    return addon.preferences.modal_vertices if addon is not None and addon.preferences else MODAL_VERTICES


@dataclass
class Plan:
    """A rebuild from the sidebar, checked and ready: ``steps`` (a generator of ``(done, total, label)``
    returning the new root; nothing changes before its last step) and whether it is worth showing
    progress (``modal``: long, or made on a worker); ``note``: what it will cost, said before a modal
    run starts (a long erosion), or None."""

    steps: Steps[bpy.types.Object]
    modal: bool = False
    note: str | None = None


def settings_class(
    name: str, doc: str, annotations: Mapping[str, PropertyDef], methods: dict[str, Callable[..., Any]] | None = None
) -> type[bpy.types.PropertyGroup]:
    """A ``bpy.types.PropertyGroup`` subclass ``name`` holding ``annotations`` (and ``methods``)."""
    return type(name, (bpy.types.PropertyGroup,), {"__annotations__": annotations, "__doc__": doc, **(methods or {})})


def auto_props(label: str) -> dict[str, PropertyDef]:
    """Auto Update and its last error, for the settings of a family that builds objects."""
    return {
        "auto_update": bpy.props.BoolProperty(
            name="Auto Update",
            default=False,
            description=f"Rebuild the active Worldseed {label} whenever a setting changes",
        ),
        "last_error": bpy.props.StringProperty(
            name="Last Error", default="", options={"SKIP_SAVE"}, description="Why the last automatic update failed"
        ),
    }


class Adapter:
    """The Blender side of one recipe section (``core.recipe.SECTIONS``): see the module's docstring.

    Class attributes: ``key`` the section's key (``scene.worldseed.<key>``); ``family`` the name of its
    operator and panel modules (the core package's name); ``kind`` the tag of the roots it builds ("" for
    sections that only configure); ``label`` a word for messages; ``update_operator`` the Update
    operator's ``bl_idname`` (Auto Update starts it where a rebuild shows progress); ``prefix`` how
    errors name a field; ``skip`` limits fields the family draws its own way; ``auto_modal`` whether Auto
    Update may rebuild through the Update operator's modal run (False: at once, or not at all, see
    :meth:`live`); ``follows`` the family whose build makes this section's objects (its recipe tables
    go with that family's).
    """

    key: str = ""
    family: str = ""
    kind: str = ""
    label: str = ""
    update_operator: str = ""
    prefix: str = ""
    skip: tuple[str, ...] = ()
    auto_modal: bool = True
    #: The family whose objects this section is built with (``"terrain"`` for the networks: worked out
    #: in its layers); its tables go into a recipe with that family's.
    follows: str = ""

    # ---------------------------------------------------------------- the section and its properties

    @property
    def section(self) -> core_recipe.Section:
        return SECTION_BY_KEY[self.key]

    @property
    def name(self) -> str:
        """The family's module name (``family``, else the key)."""
        return self.family or self.key

    def fields(self) -> tuple[str, ...]:
        """The spec fields shown as generic properties, in the order of the limits table."""
        return tuple(n for n, limit in self.section.limits.items() if limit.kind in SHOWN_KINDS and n not in self.skip)

    def defaults(self) -> Any:
        """The spec whose values are the properties' defaults."""
        return self.section.spec()

    def props(self, update: Update | None = None) -> dict[str, PropertyDef]:
        """``{name: bpy.props...}`` of the generic fields (the settings and an Add operator's redo panel)."""
        return props_from_limits(self.section.limits, self.defaults(), names=self.fields(), update=update)

    def settings_props(self, update: Update | None = None) -> dict[str, PropertyDef]:
        """Every property of the scene's settings: :meth:`props`, and Auto Update with its last error for a
        family that builds objects."""
        return {**self.props(update=update), **(auto_props(self.label or self.key) if self.kind else {})}

    def settings_classes(self, update: Update | None = None) -> tuple[type[bpy.types.PropertyGroup], ...]:
        """The property group classes of ``scene.worldseed.<key>``, children first (the last is the one the
        scene points to); ``update`` is called when a setting changes (Auto Update)."""
        title = "".join(part.title() for part in self.key.split("_"))
        doc = f"The {self.label or self.key} settings of the sidebar ({self.section.header} of a recipe)."
        return (settings_class(f"Worldseed{title}Settings", doc, self.settings_props(update), self.methods()),)

    def methods(self) -> dict[str, Callable[..., Any]]:
        """Read-only look-ups the panel calls on the settings (it imports nothing of the operators)."""
        adapter = self
        return {"active_root": lambda settings, obj: adapter.root(obj)}

    def settings(self, scene: bpy.types.Scene) -> Settings:
        """The scene's settings of this section."""
        return getattr(scene_settings(scene), self.key)

    # ---------------------------------------------------------------- sidebar -> spec -> sidebar

    def table(self, props: Settings) -> dict[str, Any]:
        """The generic fields of ``props`` (settings or operator) as a plain table, not yet checked."""
        return attrs_table(self.section.limits, props, self.fields())

    def parse(self, table: Mapping[str, Any], *, prefix: str | None = None) -> Any:
        """``table`` read by the section's reader: the one validation."""
        extra = {"base": None} if self.section.paths else {}
        return self.section.parse(table, prefix=self.prefix if prefix is None else prefix, **extra)

    def spec(self, props: Settings, **overrides: Any) -> Any:
        """The validated spec ``props`` describe (``overrides`` replace fields first)."""
        return self.parse({**self.table(props), **overrides})

    def tables(self, scene: bpy.types.Scene) -> dict[str, Any]:
        """``{section key: table or [tables]}`` of what the sidebar holds of this section, for a recipe
        (:func:`.sections.recipe_from_sidebar`); empty when it holds nothing to build."""
        table = self.table(self.settings(scene))
        return {self.key: [table] if self.section.many else table}

    def notes(self, scene: bpy.types.Scene) -> list[str]:
        """What a recipe of the sidebar (:meth:`tables`) cannot say as the scene does: lines to tell the user."""
        return []

    def load(self, props: Settings, spec: Any, *, keep: Iterable[str] = ()) -> None:
        """Copy ``spec``'s values into ``props`` (settings or operator), but the fields ``keep``."""
        apply_spec(props, spec, names=self.fields(), keep=keep)

    # ---------------------------------------------------------------- objects

    def is_root(self, obj: bpy.types.Object | None) -> bool:
        """True for a root object this family built."""
        return bool(self.kind) and is_kind(obj, self.kind)

    def root(self, obj: bpy.types.Object | None) -> bpy.types.Object | None:
        """The root this family built that ``obj`` is or belongs to, or None."""
        return root_of(obj, self.kind) if self.kind else None

    def stored(self, root: bpy.types.Object) -> Any:
        """The spec (or recipe) ``root`` was built from, stored on it."""
        raise ParameterError(f"a {self.label or self.key} keeps no settings to load")

    def load_from(self, root: bpy.types.Object, settings: Settings) -> list[str]:
        """Load Settings: the settings ``root`` was built from into the sidebar; returns warnings."""
        self.load(settings, self.stored(root))
        return []

    def rebuild_plan(self, root: bpy.types.Object, scene: bpy.types.Scene) -> Plan:
        """A :class:`Plan` of rebuilding ``root`` in place from the scene's settings; raises
        :class:`~core.errors.ParameterError` for bad settings before anything is built."""
        raise ParameterError(f"a {self.label or self.key} cannot be rebuilt from the sidebar")

    def rebuild(self, root: bpy.types.Object, scene: bpy.types.Scene) -> bpy.types.Object:
        """Rebuild ``root`` in place from the scene's settings, at once; returns the new root."""
        return drive(self.rebuild_plan(root, scene).steps)

    def live(self, settings: Settings) -> bool:
        """True when Auto Update rebuilds what ``settings`` describe (False: it only checks them, see
        :meth:`check`, and the panel says to press Update)."""
        return True

    def check(self, root: bpy.types.Object, scene: bpy.types.Scene) -> None:
        """Check the settings for a rebuild of ``root`` without building anything."""
        self.rebuild_plan(root, scene).steps.close()

    def watch(self, settings: Settings) -> None:
        """Called every half second in a window (a slow timer): look at what changes without a callback."""

    # ---------------------------------------------------------------- the headless world build

    def build(
        self,
        recipe: Recipe,
        world: World,
        *,
        scene: bpy.types.Scene,
        progress: Callable[[int, int, str], object] | None = None,
    ) -> None:
        """Build this section of ``recipe`` into ``scene`` (see :func:`.world.build_world`)."""
