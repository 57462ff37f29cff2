#!/usr/bin/env python3
"""Regenerates test/malformed/: one small broken graph file per way a graph
file can be wrong, each a one-line mutation of the same valid graph, plus
expected.txt (file, then a substring its error message must contain).

Usage: scripts/make_malformed.py [TOOL]   (TOOL, default build/app/partition_tool,
converts the base graph to binary for the .pb cases)
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "test", "malformed")
TOOL = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "app", "partition_tool")


def tensor(shape, dtype="float32"):
    stride, acc = [], 1
    for d in reversed(shape):
        stride.insert(0, acc)
        acc *= d
    return {"tensor": {"shape": shape, "stride": stride, "dtype": dtype, "device": "cuda:0"}}


# relu(x) forward; relu's backward where(x > 0 ...) with the tangent.
BASE = {
    "name": "base",
    "num_fwd_outputs": 1,
    "static_lifetime_input_indices": [0],
    "nodes": [
        {"name": "primals_1", "op": "placeholder", "target": "primals_1", "val": tensor([4, 8]),
         "partitioner_tag": "is_forward"},
        {"name": "tangents_1", "op": "placeholder", "target": "tangents_1", "val": tensor([4, 8]),
         "partitioner_tag": "is_backward"},
        {"name": "relu", "op": "call_function", "target": "aten.relu.default",
         "args": [{"node": "primals_1"}], "val": tensor([4, 8]), "op_tags": ["core", "pointwise"],
         "partitioner_tag": "is_forward"},
        {"name": "le", "op": "call_function", "target": "aten.le.Scalar",
         "args": [{"node": "relu"}, {"int": 0}], "val": tensor([4, 8], "bool"), "op_tags": ["core", "pointwise"],
         "partitioner_tag": "is_backward"},
        {"name": "where", "op": "call_function", "target": "aten.where.self",
         "args": [{"node": "le"}, {"float": 0.0}, {"node": "tangents_1"}], "val": tensor([4, 8]),
         "op_tags": ["core", "pointwise"], "partitioner_tag": "is_backward"},
        {"name": "output", "op": "output", "target": "output",
         "args": [{"list": {"items": [{"node": "relu"}, {"node": "where"}]}}]},
    ],
}
NODE = {n["name"]: i for i, n in enumerate(BASE["nodes"])}


def mutated(fn):
    g = copy.deepcopy(BASE)
    fn(g)
    return g


def node(g, name):
    return g["nodes"][NODE[name]]


def setter(path_fn):
    return lambda g: path_fn(g)


def nested_list(depth):
    arg = {"int": 1}
    for _ in range(depth):
        arg = {"list": {"items": [arg]}}
    return arg


def nested_tuple(depth):
    value = {"opaque": "x"}
    for _ in range(depth):
        value = {"tuple": {"items": [value]}}
    return value


def with_nodes(*extra):
    """BASE with `extra` nodes inserted before the output node."""
    def fn(g):
        for n in extra:
            g["nodes"].insert(len(g["nodes"]) - 1, copy.deepcopy(n))
    return fn


# A multi-output op (two tensors) and a getitem of it with index `index`.
SPLIT = {"name": "split", "op": "call_function", "target": "aten.split.Tensor",
         "args": [{"node": "relu"}, {"int": 2}],
         "val": {"tuple": {"items": [tensor([2, 8]), tensor([2, 8])]}}}


def getitem(source, index):
    return {"name": "getitem", "op": "call_function", "target": "operator.getitem",
            "args": [{"node": source}, index], "val": tensor([2, 8])}


def nested_pbtxt(depth):
    inner = "int: 1"
    for _ in range(depth):
        inner = "list { items { " + inner + " } }"
    return inner


# (file, contents as a graph dict or text/bytes, expected substring)
CASES = [
    ("syntax_error.json", json.dumps(BASE, indent=1)[:300], "not a valid JSON partition_tool.proto.Graph"),
    ("empty.json", "", "not a valid JSON partition_tool.proto.Graph"),
    ("wrong_type.json", '{"name": "g", "nodes": "relu"}', "not a valid JSON partition_tool.proto.Graph"),
    ("garbage.pb", b"\xff\xfe\xfd\xfc\x00\x01not a protobuf\xff", "not a valid binary protobuf"),
    ("truncated.pb", "TRUNCATED", "not a valid binary protobuf"),
    ("empty.pb", b"", "nodes is empty"),
    ("syntax_error.pbtxt", 'name: "g"\nnodes {\n  name: "x"\n  shape: [1]\n}\n', "not a valid text protobuf"),
    ("unknown_extension.yaml", BASE, "cannot tell the format from the extension '.yaml'"),
    ("empty_nodes.json", mutated(lambda g: g.update(nodes=[])), "nodes is empty"),
    ("empty_name.json", mutated(lambda g: node(g, "le").update(name="")), "nodes[3].name is empty"),
    ("dangling_reference.json",
     mutated(lambda g: node(g, "where")["args"].__setitem__(2, {"node": "ghost"})),
     "node 'where': args[2].node = 'ghost' refers to no node in the graph"),
    ("forward_reference.json",
     mutated(lambda g: node(g, "relu").update(args=[{"node": "le"}])),
     "node 'relu': args[0].node = 'le' refers to a later node"),
    ("self_reference.json",
     mutated(lambda g: node(g, "relu").update(args=[{"node": "relu"}])),
     "node 'relu': args[0].node = 'relu' refers to the node itself"),
    ("dangling_output.pbtxt", "TEXT:output_ghost", "node 'output': args[0].list.items[1].node = 'ghost' refers to no node"),
    ("duplicate_name.json", mutated(lambda g: node(g, "le").update(name="relu")),
     "node 'relu': name is not unique (also nodes[2])"),
    ("unknown_op.json", mutated(lambda g: node(g, "relu").update(op="call_method")),
     "node 'relu': op = 'call_method' is not one of placeholder, call_function, get_attr, output"),
    ("empty_target.json", mutated(lambda g: node(g, "relu").update(target="")), "node 'relu': target is empty"),
    ("unknown_dtype.json", mutated(lambda g: node(g, "relu")["val"]["tensor"].update(dtype="float12")),
     "node 'relu': val.tensor.dtype = 'float12' is not a torch dtype"),
    ("negative_dim.json", mutated(lambda g: node(g, "le")["val"]["tensor"].update(shape=[4, -8])),
     "node 'le': val.tensor.shape[1] = -8 is negative"),
    ("overflowing_shape.json",
     mutated(lambda g: node(g, "relu")["val"]["tensor"].update(shape=[2**40, 2**40], stride=[2**40, 1])),
     "node 'relu': val.tensor.shape describes a tensor of more than 2^62 bytes"),
    ("stride_mismatch.json", mutated(lambda g: node(g, "relu")["val"]["tensor"].update(stride=[1])),
     "node 'relu': val.tensor.stride has 1 entries but shape has 2"),
    ("shape_expr_mismatch.json", mutated(lambda g: node(g, "relu")["val"]["tensor"].update(shape_expr=["s0"])),
     "node 'relu': val.tensor.shape_expr has 1 entries but shape has 2"),
    ("no_output_node.json", mutated(lambda g: g["nodes"].pop()),
     "node 'where': op = 'call_function' but the last node must be the output node"),
    ("output_not_last.json",
     mutated(lambda g: g["nodes"].insert(4, g["nodes"].pop())),
     "node 'output': op = 'output' but the output node must be the last node"),
    ("two_output_nodes.json",
     mutated(lambda g: g["nodes"].append(dict(g["nodes"][-1], name="output_1"))),
     "node 'output': op = 'output' but the output node must be the last node"),
    ("num_fwd_outputs_out_of_range.json", mutated(lambda g: g.update(num_fwd_outputs=3)),
     "num_fwd_outputs = 3 is outside the output list (2 outputs)"),
    ("negative_num_fwd_outputs.json", mutated(lambda g: g.update(num_fwd_outputs=-1)),
     "num_fwd_outputs = -1 is outside the output list (2 outputs)"),
    ("static_lifetime_out_of_range.json", mutated(lambda g: g.update(static_lifetime_input_indices=[0, 1])),
     "static_lifetime_input_indices[1] = 1 is not the index of a primal input (there are 1)"),
    ("unknown_recompute.json", mutated(lambda g: node(g, "relu").update(recompute="SOMETIMES")),
     "node 'relu': recompute = 'SOMETIMES' is not one of MUST_SAVE"),
    ("unknown_partitioner_tag.json", mutated(lambda g: node(g, "relu").update(partitioner_tag="is_sideways")),
     "node 'relu': partitioner_tag = 'is_sideways' is not one of is_forward"),
    ("empty_arg.json", mutated(lambda g: node(g, "le")["args"].__setitem__(1, {})),
     "node 'le': args[1] has no field set"),
    ("empty_val.json", mutated(lambda g: node(g, "relu").update(val={})), "node 'relu': val has no field set"),
    ("empty_tuple_item.json",
     mutated(lambda g: node(g, "relu").update(val={"tuple": {"items": [tensor([4, 8]), {}]}})),
     "node 'relu': val.tuple.items[1] has no field set"),
    ("missing_placeholder_val.json", mutated(lambda g: node(g, "tangents_1").pop("val")),
     "node 'tangents_1': val is missing"),
    ("bad_sym_kind.json",
     mutated(lambda g: node(g, "primals_1").update(val={"sym": {"kind": "complex", "expr": "s0", "hint": 4}})),
     "node 'primals_1': val.sym.kind = 'complex' is not one of int, float, bool"),
    ("deeply_nested_list.json",
     mutated(lambda g: node(g, "le")["args"].__setitem__(1, nested_list(200))),
     "not a valid JSON partition_tool.proto.Graph"),
    ("deeply_nested_list.pbtxt", "TEXT:nested", "not a valid text protobuf"),
    ("deeply_nested_list.pb", "BINARY:nested", "nested too deeply"),
    # Adversarial cases (fuzzing-style): each still one line, exit 2.
    ("huge_dim.json",
     mutated(lambda g: node(g, "relu")["val"]["tensor"].update(shape=["9223372036854775807", 8])),
     "node 'relu': val.tensor.shape describes a tensor of more than 2^62 bytes"),
    ("dim_beyond_int64.json",
     mutated(lambda g: node(g, "relu")["val"]["tensor"].update(shape=["9223372036854775808", 8])),
     "not a valid JSON partition_tool.proto.Graph"),
    ("nan_dim.json", mutated(lambda g: node(g, "relu")["val"]["tensor"].update(shape=["NaN", 8])),
     "not a valid JSON partition_tool.proto.Graph"),
    ("deeply_nested_tuple.pbtxt", "TEXT:nested_tuple", "not a valid text protobuf"),
    ("nan_memory_budget.json", mutated(lambda g: node(g, "relu").update(memory_budget="NaN")),
     "node 'relu': memory_budget = nan is outside [0, 1]"),
    ("infinite_memory_budget.json", mutated(lambda g: node(g, "relu").update(memory_budget="Infinity")),
     "node 'relu': memory_budget = inf is outside [0, 1]"),
    ("duplicate_kwargs_key.json", "JSON:duplicate_kwargs", "Repeated map key: 'alpha' is already set"),
    ("dangling_kwargs_reference.json",
     mutated(lambda g: node(g, "le").update(kwargs={"out": {"node": "ghost"}})),
     "node 'le': kwargs.out.node = 'ghost' refers to no node in the graph"),
    ("enormous_op.json", mutated(lambda g: node(g, "relu").update(op="x" * 65536)),
     "xxxxxxxx... (65536 bytes)' is not one of placeholder"),
    ("zero_nodes.pbtxt", 'name: "g"\nnum_fwd_outputs: 0\n', "nodes is empty"),
    ("only_output_node.json",
     mutated(lambda g: g.update(nodes=[{"name": "output", "op": "output", "target": "output",
                                        "args": [{"list": {"items": []}}]}], num_fwd_outputs=0,
                                static_lifetime_input_indices=[])),
     "nodes holds only the output node"),
    ("most_negative_num_fwd_outputs.json", mutated(lambda g: g.update(num_fwd_outputs="-9223372036854775808")),
     "num_fwd_outputs = -9223372036854775808 is outside the output list"),
    ("negative_static_lifetime.json", mutated(lambda g: g.update(static_lifetime_input_indices=[-1])),
     "static_lifetime_input_indices[0] = -1 is not the index of a primal input"),
    ("newline_in_name.json", mutated(lambda g: node(g, "le").update(name="le\nfake: error")),
     "nodes[3].name = 'le\\nfake: error' holds a control character"),
    ("invalid_utf8_name.pb", "BINARY:invalid_utf8", "not a valid binary protobuf"),
    # Text format lets a raw 0xff through in a string; binary protobuf (and
    # so the tool's node records) cannot hold it (found by fuzz_pbtxt).
    ("invalid_utf8_target.pbtxt", "TEXT:invalid_utf8", "node 'le': target is not valid UTF-8"),
    # Semantic nonsense that parses: no PyTorch trace writes these.
    ("getitem_of_tensor.json", mutated(with_nodes(getitem("relu", {"int": 0}))),
     "node 'getitem': args[0].node = 'relu' whose val is a tensor, not a tuple"),
    ("getitem_of_symbol.json",
     mutated(with_nodes({"name": "sym_size", "op": "call_function", "target": "aten.sym_size.int",
                         "args": [{"node": "relu"}, {"int": 0}],
                         "val": {"sym": {"kind": "int", "expr": "s0", "hint": 4}}},
                        getitem("sym_size", {"int": 0}))),
     "node 'getitem': args[0].node = 'sym_size' whose val is a symbol, not a tuple"),
    ("getitem_index_out_of_range.json", mutated(with_nodes(SPLIT, getitem("split", {"int": 2}))),
     "node 'getitem': args[1].int = 2 is outside the tuple of 'split' (2 items, indices 0 to 1)"),
    ("getitem_negative_index.json", mutated(with_nodes(SPLIT, getitem("split", {"int": -1}))),
     "node 'getitem': args[1].int = -1 is outside the tuple of 'split'"),
    ("getitem_float_index.json", mutated(with_nodes(SPLIT, getitem("split", {"float": 1.0}))),
     "node 'getitem': args[1] is a float; the item index is an int"),
    ("getitem_string_index.json", mutated(with_nodes(SPLIT, getitem("split", {"str": "0"}))),
     "node 'getitem': args[1] is a str; the item index is an int"),
    ("getitem_val_not_its_item.json",
     mutated(with_nodes(SPLIT, dict(getitem("split", {"int": 1}), val={"none": True}))),
     "node 'getitem': val is none but item 1 of 'split' is a tensor"),
    ("extra_gradient.json",
     mutated(lambda g: node(g, "output")["args"][0]["list"]["items"].append({"none": True})),
     "node 'output': args holds 2 gradients (3 outputs after num_fwd_outputs = 1) but the graph has 1 primal inputs"),
    ("missing_gradient.json", mutated(lambda g: g.update(num_fwd_outputs=2)),
     "node 'output': args holds 0 gradients (2 outputs after num_fwd_outputs = 2) but the graph has 1 primal inputs"),
    ("malformed_shape_expr.json",
     mutated(lambda g: node(g, "relu")["val"]["tensor"].update(shape_expr=["s0 +", "8"])),
     "node 'relu': val.tensor.shape_expr[0] = 's0 +' is not a symbolic expression"),
    ("malformed_stride_expr.json",
     mutated(lambda g: node(g, "relu")["val"]["tensor"].update(stride_expr=["8", "(1"])),
     "node 'relu': val.tensor.stride_expr[1] = '(1' is not a symbolic expression"),
    ("malformed_sym_expr.json",
     mutated(lambda g: node(g, "primals_1").update(val={"sym": {"kind": "int", "expr": "s0 s1", "hint": 4}})),
     "node 'primals_1': val.sym.expr = 's0 s1' is not a symbolic expression"),
    ("shape_expr_not_its_hint.json",
     mutated(lambda g: node(g, "relu")["val"]["tensor"].update(shape_expr=["s0", "9"])),
     "node 'relu': val.tensor.shape_expr[1] = '9' but shape[1] = 8"),
    ("c1_control_in_name.json", mutated(lambda g: node(g, "le").update(name="le\u0085")),
     "nodes[3].name = 'le\\u0085' holds a control character"),
    ("c1_control_in_target.json", mutated(lambda g: node(g, "le").update(target="aten.le\u009b.Scalar")),
     "node 'le': target = 'aten.le\\u009b.Scalar' holds a control character"),
    ("newline_in_target.json", mutated(lambda g: node(g, "le").update(target="aten.le\nScalar")),
     "node 'le': target = 'aten.le\\nScalar' holds a control character"),
    ("c1_control_in_module_path.json", mutated(lambda g: node(g, "le").update(module_path="L['m']\u0085")),
     "node 'le': module_path = 'L[\\'m\\']\\u0085' holds a control character"),
    ("args_nested_past_limit.json",
     mutated(lambda g: node(g, "le")["args"].__setitem__(1, nested_list(17))),
     "node 'le': args[1] nests lists deeper than 16 levels"),
    ("args_nested_past_limit.pbtxt", "TEXT:nested17", "node 'le': args[1] nests lists deeper than 16 levels"),
    ("val_nested_past_limit.json", mutated(lambda g: node(g, "relu").update(val=nested_tuple(17))),
     "node 'relu': val.tuple nests tuples deeper than 16 levels"),
    ("missing_val.json", mutated(lambda g: node(g, "relu").pop("val")), "node 'relu': val is missing"),
    ("missing_getitem_val.json",
     mutated(with_nodes(SPLIT, dict((k, v) for k, v in getitem("split", {"int": 0}).items() if k != "val"))),
     "node 'getitem': val is missing"),
]


def run_tool(args):
    subprocess.run([TOOL] + args, check=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        base_json = os.path.join(tmp, "base.json")
        with open(base_json, "w") as f:
            json.dump(BASE, f)
        base_pb = os.path.join(tmp, "base.pb")
        run_tool(["convert", base_json, base_pb])
        base_pbtxt = os.path.join(tmp, "base.pbtxt")
        run_tool(["convert", base_json, base_pbtxt])
        with open(base_pb, "rb") as f:
            pb = f.read()
        with open(base_pbtxt) as f:
            pbtxt = f.read()
        nested = mutated(lambda g: node(g, "le")["args"].__setitem__(1, nested_list(40)))
        nested_json = os.path.join(tmp, "nested.json")
        with open(nested_json, "w") as f:
            json.dump(nested, f)

    expected = ["# file  substring that partition_tool's one-line error must contain",
                "# (regenerate with scripts/make_malformed.py)"]
    for name, contents, substring in CASES:
        path = os.path.join(OUT, name)
        if contents == "TRUNCATED":
            contents = pb[: len(pb) // 2]
        elif contents == "TEXT:output_ghost":
            contents = pbtxt.replace('node: "where"\n', 'node: "ghost"\n', 1)
            assert 'node: "ghost"' in contents
        elif contents == "TEXT:nested":
            contents = pbtxt.replace("int: 0", nested_pbtxt(40), 1)
        elif contents == "TEXT:nested17":
            contents = pbtxt.replace("int: 0", nested_pbtxt(17), 1)
        elif contents == "BINARY:nested":
            contents = nested_binary(nested)
        elif contents == "TEXT:nested_tuple":
            contents = with_nested_tuple(pbtxt, 40)
        elif contents == "JSON:duplicate_kwargs":
            kw = mutated(lambda g: node(g, "le").update(kwargs={"alpha": {"int": 1}}))
            contents = json.dumps(kw, indent=1).replace('"alpha": {', '"alpha": {"int": "2"}, "alpha": {', 1) + "\n"
        elif contents == "TEXT:invalid_utf8":
            contents = pbtxt.encode().replace(b'target: "aten.le.', b'target: "a\xffen.le.', 1)
            assert b"\xff" in contents
        elif contents == "BINARY:invalid_utf8":
            contents = pb.replace(b"primals_1", b"primals\xff1", 1)
        if isinstance(contents, dict):
            contents = json.dumps(contents, indent=1) + "\n"
        mode = "wb" if isinstance(contents, bytes) else "w"
        with open(path, mode) as f:
            f.write(contents)
        expected.append(f"{name}  {substring}")
    with open(os.path.join(OUT, "expected.txt"), "w") as f:
        f.write("\n".join(expected) + "\n")
    print(f"make_malformed: wrote {len(CASES)} files and expected.txt to {OUT}")


def with_nested_tuple(pbtxt, depth):
    # The first node's val becomes `depth` tuples, each the only item of the
    # one around it.
    start = pbtxt.index("  val {\n")
    end = pbtxt.index("\n  }\n", start) + len("\n  }\n")
    value = "tuple { items { " * depth + 'opaque: "x"' + " } }" * depth
    return pbtxt[:start] + "  val { " + value + " }\n" + pbtxt[end:]


def nested_binary(graph):
    # The JSON reader refuses this depth too, so write the binary by hand:
    # Arg.list (field 7) -> ArgList.items (field 1) -> Arg ..., innermost int.
    def varint(v):
        out = bytearray()
        while True:
            b = v & 0x7F
            v >>= 7
            out.append(b | (0x80 if v else 0))
            if not v:
                return bytes(out)

    def ld(field, payload):
        return varint(field << 3 | 2) + varint(len(payload)) + payload

    arg = varint(2 << 3 | 0) + varint(1)  # Arg.int = 1
    for _ in range(40):
        arg = ld(7, ld(1, arg))
    node_msg = ld(1, b"n") + ld(2, b"call_function") + ld(3, b"aten.relu.default") + ld(4, arg)
    out_msg = ld(1, b"output") + ld(2, b"output")
    return ld(1, b"g") + ld(2, node_msg) + ld(2, out_msg)


if __name__ == "__main__":
    main()
