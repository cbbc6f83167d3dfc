#!/usr/bin/env python3
"""Checks (or, with --fix, rewrites) the code blocks in docs/*.md that are cut from compiled
sources. A block is marked by the line `<!-- snippet: PATH#NAME -->` right before its fence; its
text must equal the lines between `// example-begin NAME` and `// example-end NAME` in PATH
(`# example-begin NAME` / `# example-end NAME` in CMake and shell files)."""
import pathlib, re, sys, textwrap

root = pathlib.Path(__file__).resolve().parent.parent
marker = re.compile(r"<!-- snippet: (\S+)#(\S+) -->")

def region(path, name):
    lines = (root / path).read_text().splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.strip() in (f"// example-begin {name}", f"# example-begin {name}"))
        end = next(i for i, l in enumerate(lines) if l.strip() in (f"// example-end {name}", f"# example-end {name}"))
    except StopIteration:
        raise SystemExit(f"{path}: no example region '{name}'")
    return textwrap.dedent("\n".join(lines[start + 1:end])).strip("\n")

def main():
    fix = "--fix" in sys.argv
    bad = 0
    checked = 0
    for doc in sorted((root / "docs").glob("*.md")):
        lines = doc.read_text().splitlines()
        out, i = [], 0
        while i < len(lines):
            out.append(lines[i])
            m = marker.search(lines[i])
            if m:
                fence = lines[i + 1]
                end = next(j for j in range(i + 2, len(lines)) if lines[j].startswith("```"))
                have = "\n".join(lines[i + 2:end])
                want = region(m.group(1), m.group(2))
                checked += 1
                if have != want:
                    bad += 1
                    print(f"{doc.name}: snippet {m.group(1)}#{m.group(2)} differs from the source")
                out += [fence] + want.splitlines() + [lines[end]]
                i = end + 1
                continue
            i += 1
        if fix:
            doc.write_text("\n".join(out) + "\n")
    print(f"{checked} snippets checked, {bad} out of date" + (" (fixed)" if fix and bad else ""))
    return 0 if fix or bad == 0 else 1

sys.exit(main())
