# `tscn-merge check --godot` with a Godot 3 binary (src/check/godot.rs writes this file
# into a temporary project and runs `godot --path DIR --script` on it). Adapted from
# scripts/godot3_load.gd: missing resources do not abort a load, and every external
# resource a file names that is not in the project has a placeholder (a scene, a script,
# or a `.remap` to res://__ph/<Type>.tres, made here). res://__check/jobs.txt lines:
# "ph<TAB>Type", then "res<TAB>res://path" (ResourceLoader.load) or "cfg<TAB>res://path"
# (ConfigFile.load). Each file is framed by "@@B <n>" and one "@@R <json>" line, so the
# engine's errors in between are that file's.
extends SceneTree


func _init():
	ResourceLoader.set_abort_on_missing_resources(false)
	var f = File.new()
	if f.open("res://__check/jobs.txt", File.READ) != OK:
		print("@@FATAL cannot read res://__check/jobs.txt")
		quit(2)
		return
	var jobs = []
	Directory.new().make_dir_recursive("res://__ph")
	while not f.eof_reached():
		var parts = f.get_line().split("\t")
		if parts.size() != 2:
			continue
		if parts[0] == "ph":
			_placeholder(parts[1])
		else:
			jobs.append(parts)
	f.close()
	print("@@READY %d %s" % [jobs.size(), Engine.get_version_info().string])
	for n in range(jobs.size()):
		print("@@B %d" % n)
		var job = jobs[n]
		var r = _config(job[1]) if job[0] == "cfg" else _resource(job[1])
		print("@@R " + to_json(r))
	print("@@DONE")
	quit(0)


# A resource of type `t` (or of a class that is one) saved as res://__ph/<t>.tres, where
# the `.remap` files of missing resources point.
func _placeholder(t):
	var cls = _concrete(t)
	var res = ClassDB.instance(cls) if cls != "" else Resource.new()
	ResourceSaver.save("res://__ph/%s.tres" % t, res)


func _concrete(t):
	if not ClassDB.class_exists(t) or not ClassDB.is_parent_class(t, "Resource"):
		return ""
	if ClassDB.can_instance(t):
		return t
	var kids = Array(ClassDB.get_inheriters_from_class(t))
	kids.sort()
	for k in kids:
		if ClassDB.can_instance(k) and not str(k).begins_with("Editor"):
			return k
	return ""


# Loaded: the resource came back (a scene: with at least one node in its SceneState).
func _resource(path):
	var r = {"loaded": false}
	var res = ResourceLoader.load(path, "", true)
	if res == null:
		return r
	r["class"] = res.get_class()
	if res is PackedScene:
		var count = res.get_state().get_node_count()
		r["nodes"] = count
		r["loaded"] = count > 0
		return r
	r["loaded"] = true
	return r


func _config(path):
	var cf = ConfigFile.new()
	var err = cf.load(path)
	return {"loaded": err == OK, "error": err}
