# Stands in for every script a checked file names (scripts/engine README: docs/engine.md).
# Extends Object, so it attaches to any node or resource; keeps every property the file
# sets that the native class lacks (a script's exported variables) and hands them back in
# the same order, so a re-save writes them as the file had them.
extends Object

static var _native := {}
var _props := {}
var _order: Array[StringName] = []


func _known(p: StringName) -> bool:
	var c := get_class()
	if not _native.has(c):
		var d := {}
		for i in ClassDB.class_get_property_list(c):
			d[StringName(i.name)] = true
		_native[c] = d
	return _native[c].has(p) or str(p).begins_with("metadata/") or p == &"script"


func _set(p: StringName, v: Variant) -> bool:
	if _known(p):
		return false
	if not _props.has(p):
		_order.append(p)
	_props[p] = v
	return true


# A node_paths= property the file never set (an array of nodes, filled in after the
# scene is instantiated) reads as an empty array, as the script's own would.
func _get(p: StringName) -> Variant:
	if _props.has(p):
		return _props[p]
	if Engine.get_meta(&"__node_path_props", {}).has(p):
		return []
	return null


func _get_property_list() -> Array[Dictionary]:
	var out: Array[Dictionary] = []
	for p in _order:
		out.append({"name": p, "type": typeof(_props[p]), "usage": PROPERTY_USAGE_STORAGE})
	return out
