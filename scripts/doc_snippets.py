#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks (or, with --fix, rewrites) the code blocks in README.md and docs/*.md that are cut from
compiled sources. A block is marked by the line `<!-- snippet: PATH#NAME -->` right before its
fence; its text must equal the lines between `// example-begin NAME` and `// example-end NAME` in
PATH (`# example-begin NAME` / `# example-end NAME` in CMake and shell files).

Every C++, CUDA or CMake block (```cpp, ```cuda, ```c++, ```cmake) must carry a marker: a block
that is not cut from compiled code (or a CMake project that CI configures) is reported as an
error. Shell blocks are run by scripts/check-doc-shell instead. `<!-- snippet: NAME -->` (no path) marks the blocks
of docs/remap.md, which tests/remap/test_remap_docs.cpp checks against its compiled example.

Usage: scripts/doc_snippets.py [--fix]   (run by ctest as the test doc_snippets)"""
import pathlib, re, sys, textwrap

root = pathlib.Path(__file__).resolve().parent.parent
marker = re.compile(r"<!-- snippet: (\S+)#(\S+) -->")
checked_elsewhere = re.compile(r"<!-- snippet: [^#\s]+ -->")
code_languages = {"cpp", "cuda", "c++", "cmake"}


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
    unmarked = 0
    checked = 0
    pages = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    for doc in pages:
        if not doc.exists():
            continue
        name = doc.relative_to(root)
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
                    print(f"{name}: snippet {m.group(1)}#{m.group(2)} differs from the source")
                out += [fence] + want.splitlines() + [lines[end]]
                i = end + 1
                continue
            if lines[i].startswith("```"):
                language = lines[i][3:].strip()
                previous = lines[i - 1] if i > 0 else ""
                if language in code_languages and not checked_elsewhere.search(previous):
                    unmarked += 1
                    print(f"{name}:{i + 1}: a ```{language} block without a snippet marker "
                          "(cut it from compiled code: <!-- snippet: PATH#NAME -->)")
                end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), len(lines) - 1)
                out += lines[i + 1:end + 1]
                i = end + 1
                continue
            i += 1
        if fix and out != lines:
            doc.write_text("\n".join(out) + "\n")
    print(f"{checked} snippets checked, {bad} out of date" + (" (fixed)" if fix and bad else "") +
          f", {unmarked} code blocks without a marker")
    return 0 if (fix or bad == 0) and unmarked == 0 else 1


sys.exit(main())
