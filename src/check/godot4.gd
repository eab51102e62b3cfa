# `tscn-merge check --godot` with a Godot 4 binary (src/check/godot.rs writes this file
# into a temporary project and runs `godot --headless --path DIR --script` on it). Adapted
# from the project's own engine harness (tests/engine/check.gd): missing resources do not
# abort a load, and every external resource a file names that is not in the project has a
# placeholder (a scene, a script, or a `.remap` to res://__ph/<Type>.tres, made here).
# res://__check/jobs.txt lines: "ph<TAB>Type", "uid<TAB>uid://...<TAB>res://path" (the
# project's uid cache: registered, so a reference by uid finds its file without the
# engine's "invalid UID" warning), then "res<TAB>res://path" (a scene or resource:
# ResourceLoader.load) or "cfg<TAB>res://path" (ConfigFile.load). Each file is
# framed by "@@B <n>" and one "@@R <json>" line, so the engine's errors in between are
# that file's.
extends SceneTree


func _initialize() -> void:
	ResourceLoader.set_abort_on_missing_resources(false)
	var f := FileAccess.open("res://__check/jobs.txt", FileAccess.READ)
	if f == null:
		print("@@FATAL cannot read res://__check/jobs.txt")
		quit(2)
		return
	var jobs: Array = []
	DirAccess.make_dir_recursive_absolute("res://__ph")
	while not f.eof_reached():
		var parts := f.get_line().split("\t")
		if parts.size() == 3 and parts[0] == "uid":
			_uid(parts[1], parts[2])
			continue
		if parts.size() != 2:
			continue
		if parts[0] == "ph":
			_placeholder(parts[1])
		else:
			jobs.append(parts)
	print("@@READY %d %s" % [jobs.size(), Engine.get_version_info().string])
	for n in jobs.size():
		print("@@B %d" % n)
		var job: Array = jobs[n]
		var r: Dictionary = _config(job[1]) if job[0] == "cfg" else _resource(job[1])
		print("@@R " + JSON.stringify(r))
	print("@@DONE")
	quit(0)


func _uid(text: String, path: String) -> void:
	var id := ResourceUID.text_to_id(text)
	if id != ResourceUID.INVALID_ID and not ResourceUID.has_id(id):
		ResourceUID.add_id(id, path)


# A resource of type `t` (or of a class that is one) saved as res://__ph/<t>.tres, where
# the `.remap` files of missing resources point. A placeholder texture is large, so that
# a tile set's atlas finds its tiles inside it (as in tests/engine/check.gd).
func _placeholder(t: String) -> void:
	var cls := _concrete(t)
	var res: Resource = ClassDB.instantiate(cls) if cls != "" else Resource.new()
	if res is PlaceholderTexture2D:
		res.size = Vector2(8192, 8192)
	ResourceSaver.save(res, "res://__ph/%s.tres" % t)


func _concrete(t: String) -> String:
	if not ClassDB.class_exists(t) or not ClassDB.is_parent_class(t, "Resource"):
		return ""
	if ClassDB.class_exists("Placeholder" + t) and ClassDB.can_instantiate("Placeholder" + t):
		return "Placeholder" + t
	if ClassDB.can_instantiate(t):
		return t
	var kids := Array(ClassDB.get_inheriters_from_class(t))
	kids.sort()
	for k in kids:
		if ClassDB.can_instantiate(k) and not str(k).begins_with("Editor"):
			return k
	return ""


# Loaded: the resource came back (a scene: with at least one node in its SceneState).
func _resource(path: String) -> Dictionary:
	var r := {"loaded": false}
	var res: Resource = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
	if res == null:
		return r
	r["class"] = res.get_class()
	if res is PackedScene:
		var count: int = res.get_state().get_node_count()
		r["nodes"] = count
		r["loaded"] = count > 0
		return r
	r["loaded"] = true
	return r


func _config(path: String) -> Dictionary:
	var cf := ConfigFile.new()
	var err := cf.load(path)
	return {"loaded": err == OK, "error": err}
