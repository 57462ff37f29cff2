#!/usr/bin/env python3
"""Regenerates lib/settings/op_classes_default.inc from an op_classes.json
(as in shared/corpus/): python3 tools/gen_op_classes.py op_classes.json"""
import json
import sys

CLASSES = ["recomputable_ops", "random_ops", "view_ops", "compute_intensive_ops",
           "pointwise_packets", "cse_rand_ops"]


def main(path, out_path="lib/settings/op_classes_default.inc"):
    with open(path) as f:
        classes = json.load(f)
    out = ["// Generated from shared/corpus/op_classes.json (PyTorch %s) by" % classes["torch_version"],
           "// tools/gen_op_classes.py; do not edit by hand. Overload packets per class.", ""]
    for name in CLASSES:
        out.append("inline constexpr std::string_view k_%s[] = {" % name)
        out.extend('    "%s",' % packet for packet in sorted(classes[name]))
        out.append("};")
    with open(out_path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
