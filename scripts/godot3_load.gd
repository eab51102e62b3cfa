# Loads every resource listed in res://_files.txt (one res:// path a line) with the real
# Godot 3 engine and prints one line per file: "OK <path>" or "FAIL <path>".
# Run by scripts/godot3-check.sh: godot3-server --path <project> -s res://_godot3_load.gd
# A file counts as loaded when ResourceLoader.load returns it (a scene: with nodes).
extends SceneTree

func _init():
	# The project's other files (scripts, textures, instanced scenes) are absent.
	ResourceLoader.set_abort_on_missing_resources(false)
	var f = File.new()
	if f.open("res://_files.txt", File.READ) != OK:
		print("ERROR cannot read res://_files.txt")
		quit(2)
		return
	var paths = []
	while not f.eof_reached():
		var line = f.get_line().strip_edges()
		if line != "":
			paths.append(line)
	f.close()
	for p in paths:
		print(("OK " if _loads(p) else "FAIL ") + p)
	print("DONE")
	quit(0)

func _loads(p):
	var r = ResourceLoader.load(p, "", true)
	if r == null:
		return false
	# Instancing needs the instanced scenes, absent here: check the scene's state instead.
	if r is PackedScene and r.get_state().get_node_count() == 0:
		return false
	return true
