#!/usr/bin/env python3
"""scripts/check_house.py on a scratch repository that breaks each rule once: it reports exactly those
lines, ignores files git does not track, and passes once the breaking files are gone. Exits 77
(ctest: skipped) with the reason where there is no git.

    check_house_test.py CHECK_HOUSE_PY
"""

import os
import shutil
import subprocess
import sys
import tempfile

CLEAN = {
    "scripts/.keep": "",
    "api/backend.hpp": '#pragma once\n#include "platform/system.hpp"  // platform/system.hpp: below the contract\n',
    "platform/system.hpp": "#pragma once\n",
    "cuda/ok.cu": '#include "api/backend.hpp"\n#include "cpu/simd.hpp"\n#include "vulkan/shaders/sum.spv.inc"\n'
                  '// 0x7f0a00000000, the placeholder machine "vm-3f2a91c0", results/logs/run-2026-11-26.tgz\n',
    "cpu/simd.hpp": "#pragma once\n",
    "results/logs/run-2026-11-26.tgz": "",
    "results/notes.txt": "measured 2026-11-26 on vm-56842293, commit 59400ae\n",
    "tests/version_test.cpp": 'EXPECT_EQ(version(), "2e5b06b-dirty");  // git describe\'s form\n',
    "README.md": "# Title\n\nSee [cpu](cpu/PERFORMANCE.md#simd) and [the site](https://example.org/x.md).\n",
    "cpu/PERFORMANCE.md": "Back to the [README](../README.md).\n",
}
BROKEN = {  # path: (text, the violations it must produce as `path:line: rule`)
    "cuda/bad.cu": ('#include "api/backend.hpp"\n#include "bench/cli.hpp"\n', ["cuda/bad.cu:2: layers"]),
    "bench/PERFORMANCE.md": ("line\n" * 300, ["bench/PERFORMANCE.md:300: lines"]),
    "exact/notes.md": ("measured on 2026-11-26 by exp-7637aa9 on vm-56842293 at 59400ae\n"
                       "see api/gone.hpp, gpu/ and gpu/runtime/x.hpp; [x](../missing.md)\n",
                       ["exact/notes.md:1: diary"] * 4 + ["exact/notes.md:2: paths"] * 4),
    "tests/dated_test.cpp": ('EXPECT_EQ(day(), "2026-11-26");  // test data\n// written 2026-11-26\n',
                             ["tests/dated_test.cpp:2: diary"]),
}
UNTRACKED = {"cuda/untracked.cu": '#include "bench/cli.hpp"  // 2026-11-26, bench/gone.hpp\n'}


def write(root, files):
    for path, text in files.items():
        os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)


def check(root):
    script = os.path.join(root, "scripts", "check_house.py")
    result = subprocess.run([sys.executable, script], capture_output=True, text=True)
    return result.returncode, result.stdout


def main():
    if shutil.which("git") is None:
        print("skipped: no git on the PATH (the house check reads git ls-files)")
        return 77
    with tempfile.TemporaryDirectory() as root:
        write(root, CLEAN)
        shutil.copy(sys.argv[1], os.path.join(root, "scripts", "check_house.py"))
        shutil.copy(__file__, os.path.join(root, "tests", "check_house_test.py"))  # which the check names
        write(root, {path: text for path, (text, _) in BROKEN.items()})
        subprocess.run(["git", "init", "-q", root], check=True)
        subprocess.run(["git", "-C", root, "add", "."], check=True)
        write(root, UNTRACKED)
        status, out = check(root)
        found = sorted(":".join(line.split(":")[:3]) for line in out.splitlines()[:-1])
        expected = sorted(v for _, violations in BROKEN.values() for v in violations)
        if status != 1 or found != expected:
            print(f"expected exit 1 and\n  " + "\n  ".join(expected) + f"\ngot exit {status} and\n{out}")
            return 1
        subprocess.run(["git", "-C", root, "rm", "-q", "--cached", *BROKEN], check=True)
        status, out = check(root)
        if status != 0:
            print(f"the clean tree fails (exit {status}):\n{out}")
            return 1
    print("check_house.py reports each broken rule, ignores untracked files and passes a clean tree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
