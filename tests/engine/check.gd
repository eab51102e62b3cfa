# The engine side of the harness (tests/engine/README in docs/engine.md): the main scene's
# script. Reads res://__check/jobs.json, makes the placeholder resources the pack's
# .import files point at, then for each listed file, a few per frame:
#   - a scene or resource: ResourceLoader.load; a PackedScene's SceneState node paths,
#     instantiate() and which of those paths the instantiated tree lacks; re-save with
#     ResourceSaver.save to user:// and compare the bytes with the file's own;
#   - a ConfigFile-format file: ConfigFile.load, its sections and keys.
# Each file is framed by "@@B <i>" and one "@@R <json>" line on standard output, so the
# driver (run.mjs) gives every error the engine prints in between to that file.
extends Node

var jobs: Array = []
var next := 0
var out_dir := "user://__out"


func _ready() -> void:
	ResourceLoader.set_abort_on_missing_resources(false)
	var text := FileAccess.get_file_as_string("res://__check/jobs.json")
	var parsed = JSON.parse_string(text)
	if typeof(parsed) != TYPE_DICTIONARY:
		print("@@FATAL cannot read res://__check/jobs.json")
		get_tree().quit(2)
		return
	jobs = parsed["files"]
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--start="):
			next = int(arg.substr(8))
	DirAccess.make_dir_recursive_absolute(out_dir)
	DirAccess.make_dir_recursive_absolute("user://__ph")
	var props := {}
	for p in parsed["node_path_props"]:
		props[StringName(p)] = true
	Engine.set_meta(&"__node_path_props", props)
	for t in parsed["types"]:
		_placeholder(str(t), parsed["animations"])
	DirAccess.make_dir_recursive_absolute("user://__scripts")
	var source := FileAccess.get_file_as_string("res://__check/placeholder.gd")
	for spec in parsed["scripts"]:
		_script(source, spec)
	print("@@READY %d %s" % [jobs.size(), Engine.get_version_info().string])


# A resource of type `t` (or of a class that is one) saved as user://__ph/<t>.tres, where
# the pack's .remap files send every external resource of that type. A placeholder
# texture is large, so that tile set atlases find their tiles inside it; placeholder
# SpriteFrames have every animation the files' nodes name.
func _placeholder(t: String, animations: Array) -> void:
	var cls := _concrete(t)
	var res: Resource = ClassDB.instantiate(cls) if cls != "" else Resource.new()
	if res is PlaceholderTexture2D:
		res.size = Vector2(8192, 8192)
	if res is SpriteFrames:
		for a in animations:
			if not res.has_animation(a):
				res.add_animation(a)
	var err := ResourceSaver.save(res, "user://__ph/%s.tres" % t)
	print("@@PH %s %s %d" % [t, cls if cls != "" else "Resource", err])


# A placeholder script: placeholder.gd with the signals and methods (any arguments) that
# connections need, less those Object already has (a script may not redeclare them).
func _script(source: String, spec: Dictionary) -> void:
	var text := source
	for s in spec["signals"]:
		if not ClassDB.class_has_signal("Object", s):
			text += "\nsignal %s\n" % s
	for m in spec["methods"]:
		if not ClassDB.class_has_method("Object", m) and not m in PLACEHOLDER_OWN:
			text += "\nfunc %s(...args: Array) -> void:\n\tpass\n" % m
	var f := FileAccess.open(spec["out"], FileAccess.WRITE)
	f.store_string(text)
	f.close()


const PLACEHOLDER_OWN := ["_known", "_set", "_get", "_get_property_list"]


func _concrete(t: String) -> String:
	if not ClassDB.class_exists(t) or not ClassDB.is_parent_class(t, "Resource"):
		return ""
	# Texture2D, Mesh, Material, ... can be instantiated (for scripts to extend) but
	# answer nothing; their Placeholder classes do.
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


func _process(_delta: float) -> void:
	var start := Time.get_ticks_msec()
	while next < jobs.size() and Time.get_ticks_msec() - start < 200:
		var job: Dictionary = jobs[next]
		print("@@B %d" % next)
		var r: Dictionary
		if job["k"] == "cfg":
			r = _config(job["p"])
		else:
			r = _resource(job["p"])
		r["i"] = next
		print("@@R " + JSON.stringify(r))
		next += 1
	if next >= jobs.size():
		print("@@DONE")
		set_process(false)
		get_tree().quit(0)


func _resource(path: String) -> Dictionary:
	var r := {"loaded": false}
	var res: Resource = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
	if res == null:
		return r
	r["loaded"] = true
	r["class"] = res.get_class()
	if res is PackedScene:
		var state: SceneState = res.get_state()
		var paths: Array[String] = []
		for i in state.get_node_count():
			paths.append(_rel(str(state.get_node_path(i))))
		r["state"] = paths
		var node: Node = res.instantiate()
		r["instantiated"] = node != null
		if node != null:
			var missing: Array[String] = []
			for p in paths:
				if p != "." and node.get_node_or_null(NodePath(p)) == null:
					missing.append(p)
			r["missing"] = missing
			r["tree"] = _count(node)
			node.free()
	var ext := path.get_extension()
	var saved := "%s/%d.%s" % [out_dir, next, ext]
	var err := ResourceSaver.save(res, saved)
	r["save_error"] = err
	if err == OK:
		var mine := FileAccess.get_file_as_bytes(path)
		var theirs := FileAccess.get_file_as_bytes(saved)
		r["same"] = mine == theirs
		if mine != theirs:
			r["saved"] = theirs.get_string_from_utf8()
		DirAccess.remove_absolute(saved)
	return r


func _config(path: String) -> Dictionary:
	var cf := ConfigFile.new()
	var err := cf.load(path)
	var r := {"loaded": err == OK, "error": err}
	if err == OK:
		var sections := cf.get_sections()
		var keys := 0
		for s in sections:
			keys += cf.get_section_keys(s).size()
		r["sections"] = sections.size()
		r["keys"] = keys
	return r


func _rel(p: String) -> String:
	if p == "." or p == "":
		return "."
	return p.trim_prefix("./")


func _count(n: Node) -> int:
	var c := 1
	for k in n.get_children(true):
		c += _count(k)
	return c
