//! The node classes Godot 4 renamed from Godot 3 (`Spatial` -> `Node3D`,
//! `KinematicBody2D` -> `CharacterBody2D`, ...), as the project converter renames them.
//! It only answers "is this the same class under its other name", for node matching; the
//! type change itself is still reported (scripts and the editor see the new class).

/// (Godot 3 class, Godot 4 class), sorted by the Godot 3 name.
const NODE_RENAMES: &[(&str, &str)] = &[
    ("ARVRAnchor", "XRAnchor3D"),
    ("ARVRCamera", "XRCamera3D"),
    ("ARVRController", "XRController3D"),
    ("ARVROrigin", "XROrigin3D"),
    ("AnimatedSprite", "AnimatedSprite2D"),
    ("Area", "Area3D"),
    ("BakedLightmap", "LightmapGI"),
    ("BoneAttachment", "BoneAttachment3D"),
    ("CPUParticles", "CPUParticles3D"),
    ("Camera", "Camera3D"),
    ("CollisionPolygon", "CollisionPolygon3D"),
    ("CollisionShape", "CollisionShape3D"),
    ("ConeTwistJoint", "ConeTwistJoint3D"),
    ("DirectionalLight", "DirectionalLight3D"),
    ("GIProbe", "VoxelGI"),
    ("Generic6DOFJoint", "Generic6DOFJoint3D"),
    ("HingeJoint", "HingeJoint3D"),
    ("Joint", "Joint3D"),
    ("KinematicBody", "CharacterBody3D"),
    ("KinematicBody2D", "CharacterBody2D"),
    ("Light", "Light3D"),
    ("Light2D", "PointLight2D"),
    ("Listener", "AudioListener3D"),
    ("Listener2D", "AudioListener2D"),
    ("MeshInstance", "MeshInstance3D"),
    ("MultiMeshInstance", "MultiMeshInstance3D"),
    ("NavigationAgent", "NavigationAgent3D"),
    ("NavigationMeshInstance", "NavigationRegion3D"),
    ("NavigationObstacle", "NavigationObstacle3D"),
    ("NavigationPolygonInstance", "NavigationRegion2D"),
    ("OmniLight", "OmniLight3D"),
    ("Particles", "GPUParticles3D"),
    ("Particles2D", "GPUParticles2D"),
    ("Path", "Path3D"),
    ("PathFollow", "PathFollow3D"),
    ("PhysicalBone", "PhysicalBone3D"),
    ("PinJoint", "PinJoint3D"),
    ("Position2D", "Marker2D"),
    ("Position3D", "Marker3D"),
    ("RayCast", "RayCast3D"),
    ("RemoteTransform", "RemoteTransform3D"),
    ("RigidBody", "RigidBody3D"),
    ("Skeleton", "Skeleton3D"),
    ("SliderJoint", "SliderJoint3D"),
    ("SoftBody", "SoftBody3D"),
    ("Spatial", "Node3D"),
    ("SpotLight", "SpotLight3D"),
    ("SpringArm", "SpringArm3D"),
    ("Sprite", "Sprite2D"),
    ("StaticBody", "StaticBody3D"),
    ("TextureProgress", "TextureProgressBar"),
    ("ToolButton", "Button"),
    ("VehicleBody", "VehicleBody3D"),
    ("VehicleWheel", "VehicleWheel3D"),
    ("ViewportContainer", "SubViewportContainer"),
    ("VisibilityEnabler", "VisibleOnScreenEnabler3D"),
    ("VisibilityEnabler2D", "VisibleOnScreenEnabler2D"),
    ("VisibilityNotifier", "VisibleOnScreenNotifier3D"),
    ("VisibilityNotifier2D", "VisibleOnScreenNotifier2D"),
    ("YSort", "Node2D"),
];

/// Godot 4's name for a Godot 3 node class, if Godot 4 renamed it.
fn godot4_name(class: &str) -> Option<&'static str> {
    let i = NODE_RENAMES
        .binary_search_by(|(g3, _)| g3.cmp(&class))
        .ok()?;
    NODE_RENAMES.get(i).map(|(_, g4)| *g4)
}

/// Whether `a` and `b` are one class under its Godot 3 and Godot 4 names (either way).
pub(super) fn renamed_class(a: &str, b: &str) -> bool {
    godot4_name(a) == Some(b) || godot4_name(b) == Some(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_for_binary_search() {
        assert!(NODE_RENAMES.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn renames_both_ways_and_nothing_else() {
        assert!(renamed_class("DirectionalLight", "DirectionalLight3D"));
        assert!(renamed_class("CharacterBody2D", "KinematicBody2D"));
        assert!(renamed_class("Spatial", "Node3D"));
        assert!(!renamed_class("Spatial", "Node2D"));
        assert!(!renamed_class("Node3D", "Node3D"));
    }
}
