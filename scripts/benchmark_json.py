# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the benchmark scripts share: the one error line and exit code of every microsched program,
and reading a Google Benchmark JSON file (--benchmark_out)."""
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
