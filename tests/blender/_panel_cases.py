"""Drawing a sidebar panel without a UI (shared by every panel test).

Background Blender cannot rasterise a UI, so ``draw`` runs with a layout :class:`Recorder`: every
``prop`` must name a real RNA property of the real settings, every ``operator``/``menu`` a registered
one, every operator property the panel sets must exist, every layout attribute set a known one.  It
records ``(kind, what)`` pairs: ``("prop", name)``, ``("operator", idname)``, ``("label", text)``,
``("set", attribute)``, ``("menu", idname)``, ``("list", name)``, ``("curve", name)``, ``("icon", value)``.
"""

import types

import bpy

#: Layout attributes a panel may set.
LAYOUT_ATTRIBUTES = {"active", "enabled", "use_property_split", "use_property_decorate", "alert", "scale_y"}


class Recorder:
    """A stand-in layout that records what a panel draws."""

    def __init__(self, calls):
        self.__dict__["calls"] = calls

    def __setattr__(self, name, value):
        assert name in LAYOUT_ATTRIBUTES, name
        self.calls.append(("set", name))

    def _child(self, *args, **kwargs):
        return type(self)(self.calls)

    row = column = box = split = _child

    def prop(self, data, name, **kwargs):
        assert name in data.bl_rna.properties, f"{type(data).__name__} has no property {name!r}"
        self.calls.append(("prop", name))

    def operator(self, idname, **kwargs):
        module, _, op = idname.partition(".")
        rna = getattr(getattr(bpy.ops, module), op).get_rna_type()
        self.calls.append(("operator", idname))
        return OperatorProps(rna)

    def menu(self, idname, **kwargs):
        assert getattr(bpy.types, idname, None) is not None, f"menu {idname} not registered"
        self.calls.append(("menu", idname))

    def label(self, **kwargs):
        self.calls.append(("label", kwargs.get("text", "")))

    def separator(self, **kwargs):
        pass

    def template_curve_mapping(self, data, name, **kwargs):
        assert name in data.bl_rna.properties
        self.calls.append(("curve", name))

    def template_list(self, list_id, _list_name, data, name, active_data, active_name, **kwargs):
        assert getattr(bpy.types, list_id, None) is not None, f"UI list {list_id} not registered"
        assert name in data.bl_rna.properties and active_name in active_data.bl_rna.properties
        self.calls.append(("list", name))

    def icon(self, data):
        assert isinstance(data, bpy.types.Image)
        return 7

    def template_icon(self, icon_value, **kwargs):
        assert icon_value == 7
        self.calls.append(("icon", icon_value))


class OperatorProps:
    """What ``layout.operator`` returns: only the operator's real properties may be set."""

    def __init__(self, rna):
        self.__dict__["rna"] = rna

    def __setattr__(self, name, value):
        assert name in self.rna.properties, f"{self.rna.identifier} has no property {name!r}"


class PanelSelf:
    """Stands in for the panel instance Blender would pass: its layout plus the class's own methods."""

    def __init__(self, cls, layout):
        self.cls, self.layout = cls, layout

    def __getattr__(self, name):
        attr = getattr(self.cls, name)
        return types.MethodType(attr, self) if callable(attr) and not isinstance(attr, type) else attr


class DataRecorder(Recorder):
    """A :class:`Recorder` that also says whose property each ``prop`` is: ``("prop", name, data)``."""

    def prop(self, data, name, **kwargs):
        super().prop(data, name, **kwargs)
        self.calls[-1] = ("prop", name, data)


def draw(panel_cls, context=None, method="draw", recorder=Recorder):
    """What ``panel_cls.<method>`` draws: ``[(kind, what), ...]`` (see the module's docstring)."""
    calls = []
    getattr(panel_cls, method)(PanelSelf(panel_cls, recorder(calls)), context or bpy.context)
    return calls


def props(calls):
    """The names of the properties drawn."""
    return {call[1] for call in calls if call[0] == "prop"}


def shown(calls):
    """The property names drawn and the labels, as ``"label: <text>"``."""
    return props(calls) | {f"label: {call[1]}" for call in calls if call[0] == "label"}
