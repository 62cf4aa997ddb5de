"""The shape of an IRDL dialect, for irdl.test: one line per op with its operands and results
(name, `variadic` when so) and its attribute names, sorted, and one per type. Reads IRDL text
(lattice.irdl.mlir, or what tblgen-to-irdl makes of the ODS definition) from standard input."""

import re
import sys


def shape(text):
    lines = []
    for name in re.findall(r"irdl\.type @\"?!?(\w+)\"?", text):
        lines.append("type %s" % name)
    for chunk in text.split("irdl.operation @")[1:]:
        op, body = re.match(r"(\w+)(.*)", chunk, re.S).groups()
        parts = [op]
        for group in ("operands", "results"):
            found = re.search(r"irdl\.%s\((.*?)\)" % group, body)
            items = re.findall(r"(\w+): (variadic )?%", found.group(1)) if found else []
            parts.append("%s(%s)" % (group, ", ".join(n + (" variadic" if v else "") for n, v in items)))
        names = re.findall(r"\"(\w+)\" = %", body)
        parts.append("attributes{%s}" % ", ".join(sorted(names)))
        lines.append("op " + " ".join(parts))
    return sorted(lines)


if __name__ == "__main__":
    print("\n".join(shape(sys.stdin.read())))
