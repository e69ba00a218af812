"""Networks operators: Build Networks (the rivers and roads into a terrain, with progress and Esc), Update
Networks (the active terrain rebuilt in place), Load from Active, and the road points (Add Point, Pick
Selected).

The rivers and roads are worked out with the terrain (its layers, after the erosion): building them is
building the terrain with the Networks panel's ``[rivers]`` and ``[roads]`` (through the terrain's
adapter, ``bridge.sections.TerrainAdapter``, which takes them from the scene), so its mesh, splats and
scatter follow the carved ground.  :mod:`.bridge.networks` adds the rivers', roads' and curves' objects.
"""

import bpy

from .bridge import networks as bridge_networks
from .bridge import sections
from .bridge import terrain as bridge_terrain
from .common import FamilyOperator, ModalBuild, Rebuild, Reports, paused_auto_update, select_only

TERRAIN = sections.adapter("terrain")
RIVERS, ROADS = sections.adapter("rivers"), sections.adapter("roads")
#: The collection Add Point puts the road points' empties in.
POINTS_COLLECTION = "Road Points"


def _summary(root):
    parts = [o.name for o in bridge_networks.network_objects(root)]
    return f"Worldseed: built {root.name!r}" + (f" with {', '.join(parts)}" if parts else " (no rivers or roads on)")


class WORLDSEED_OT_networks_build(ModalBuild, FamilyOperator, bpy.types.Operator):
    """Build the Networks panel's rivers and roads: the active Worldseed terrain is rebuilt with them (its
    mesh, splats and scatter follow the carved ground); with none active, a new terrain is added"""

    bl_idname = "worldseed.networks_build"
    bl_label = "Build Networks"
    bl_options = {"REGISTER", "UNDO"}
    family = "terrain"

    from_settings: bpy.props.BoolProperty(default=True, options={"SKIP_SAVE", "HIDDEN"})

    def invoke(self, context, event):
        return self.run(context, modal=True)

    def execute(self, context):
        return self.run(context, modal=False)

    def run(self, context, *, modal):
        def work():
            root = TERRAIN.root(context.active_object)
            if root is not None:
                plan = TERRAIN.rebuild_plan(root, context.scene)
                steps, slow, note = plan.steps, plan.modal, plan.note
            else:
                recipe = TERRAIN.scene_recipe(context.scene)
                location = tuple(context.scene.cursor.location)
                steps = bridge_terrain.terrain_steps(recipe, collection=context.collection, location=location)
                slow, note = TERRAIN.runs_modal(recipe), bridge_terrain.erosion_note(recipe)
            return self.run_steps(context, steps, "building networks", modal=modal and slow, note=note)

        return self.guard(context, work)

    def finished(self, context, root):
        context.view_layer.update()
        select_only(context, root)
        self.report({"INFO"}, _summary(root))


class WORLDSEED_OT_networks_update(Rebuild, bpy.types.Operator):
    """Rebuild the active Worldseed terrain in place with the Networks and Terrain panels' settings"""

    bl_idname = "worldseed.networks_update"
    bl_label = "Update Networks"
    bl_options = {"REGISTER", "UNDO"}
    family = "terrain"


class WORLDSEED_OT_networks_load_settings(FamilyOperator, bpy.types.Operator):
    """Copy the rivers and roads the active Worldseed terrain was built with into the Networks panel"""

    bl_idname = "worldseed.networks_load_settings"
    bl_label = "Load from Active"
    bl_options = {"REGISTER", "UNDO"}
    family = "terrain"

    @classmethod
    def poll(cls, context):
        return cls.active_root(context) is not None

    def execute(self, context):
        root = self.active_root(context)

        def work():
            recipe = TERRAIN.stored(root)
            for adapter, spec in ((RIVERS, recipe.rivers), (ROADS, recipe.roads)):
                with paused_auto_update(adapter.settings(context.scene)) as settings:
                    adapter.load(settings, spec)
            return {"FINISHED"}

        return self.guard(context, work)


class WORLDSEED_OT_road_point_add(Reports, bpy.types.Operator):
    """Add an empty at the 3D cursor to the road points (the collection 'Road Points'); the roads then take
    their points from that collection"""

    bl_idname = "worldseed.road_point_add"
    bl_label = "Add Point"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        def work():
            settings = ROADS.settings(context.scene)
            coll = settings.points_collection
            if coll is None:
                coll = bpy.data.collections.get(POINTS_COLLECTION) or bpy.data.collections.new(POINTS_COLLECTION)
                if coll.name not in context.scene.collection.children:
                    context.scene.collection.children.link(coll)
            name = f"Road Point {len(coll.all_objects) + 1:02d}"
            empty = bpy.data.objects.new(name, None)
            empty.empty_display_type = "SINGLE_ARROW"
            empty.location = context.scene.cursor.location
            coll.objects.link(empty)
            settings.points_collection, settings.points_source = coll, "COLLECTION"
            select_only(context, empty)
            return {"FINISHED"}

        return self.guard(context, work)


class WORLDSEED_OT_road_points_pick(Reports, bpy.types.Operator):
    """Use the selected objects (by name) as the road points"""

    bl_idname = "worldseed.road_points_pick"
    bl_label = "Pick Selected"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return bool(context.selected_objects)

    def execute(self, context):
        def work():
            settings = ROADS.settings(context.scene)
            settings.points_objects.clear()
            for obj in sorted(context.selected_objects, key=lambda o: o.name):
                settings.points_objects.add().object = obj
            settings.points_source, settings.active_point = "OBJECTS", 0
            return {"FINISHED"}

        return self.guard(context, work)


classes = (
    WORLDSEED_OT_networks_build,
    WORLDSEED_OT_networks_update,
    WORLDSEED_OT_networks_load_settings,
    WORLDSEED_OT_road_point_add,
    WORLDSEED_OT_road_points_pick,
)
