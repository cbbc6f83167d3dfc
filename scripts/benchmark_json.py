# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the benchmark scripts share: the one error line and exit code of every microsched program,
their positional arguments, the check of a file to write, and reading a Google Benchmark JSON
file (--benchmark_out)."""
import json
import os
import sys

PROG = os.path.basename(sys.argv[0])


def fail(message, code=2):
    """Prints 'PROG: error: MESSAGE' on stderr and exits with `code` (2: bad usage or input)."""
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(code)


def read_benchmark_json(path):
    """(context, rows) of a Google Benchmark JSON file; exits 2 naming the file otherwise."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        fail(f"cannot read '{path}': {e.strerror}")
    except (ValueError, UnicodeDecodeError) as e:
        fail(f"'{path}' is not JSON: {e}")
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        fail(f"'{path}' is not Google Benchmark JSON (no \"benchmarks\" list)")
    context = data.get("context") if isinstance(data.get("context"), dict) else {}
    return context, [b for b in data["benchmarks"] if isinstance(b, dict)]


def positional_arguments(count, usage, doc):
    """sys.argv's `count` positional arguments; prints `doc` for -h/--help and exits 0; exits 2
    naming an unknown option or, with `usage`, a wrong number of arguments."""
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print(doc.strip())
        sys.exit(0)
    for arg in sys.argv[1:]:
        if arg.startswith("-"):
            fail(f"unknown option '{arg}' (see --help)")
    if len(sys.argv) != count + 1:
        fail(f"usage: {usage} (see --help)")
    return sys.argv[1:]


def check_writable(label, path):
    """Exits 2 unless a file can be written at `path` (checked before reading; creates nothing)."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        fail(f"{label}: is a folder, not a file")
    if not os.path.isdir(folder):
        fail(f"{label}: the folder '{folder}' does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        fail(f"{label}: the folder '{folder}' is not writable")
