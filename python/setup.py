# SPDX-License-Identifier: MIT
"""Builds pcq's C sources into pcq/_pcqlib (a plain shared library loaded with ctypes: no Python.h).

The sources are pcq's own, at the top of its source tree (python/.. here); PCQ_SOURCE_DIR names another
tree. The version is PCQ_VERSION_STRING of pcq_codec.h.
"""
import base64
import hashlib
import os
import re
import shutil
import sys
import sysconfig
import zipfile

from setuptools import Command, Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ["pcq_codec.c", "pcq_calc.c", "tools/pcqdump/pcq_json.c", "tools/pcqdump/cook_run.c",
           "tools/pcqdump/cook_metrics.c"]
HEADERS = ["pcq_codec.h", "tools/pcqdump/pcq_json.h", "tools/pcqdump/cook.h"]


def source_dir():
    """pcq's source tree: PCQ_SOURCE_DIR, or the directory above this one."""
    top = os.environ.get("PCQ_SOURCE_DIR") or os.path.dirname(HERE)
    top = os.path.abspath(top)
    missing = [f for f in SOURCES + HEADERS if not os.path.isfile(os.path.join(top, f))]
    if missing:
        sys.exit("pcq: cannot build the binding: %s not found in %s. Build it from pcq's source tree "
                 "(pip install --no-build-isolation ./python), or set PCQ_SOURCE_DIR to that tree."
                 % (", ".join(missing), top))
    return top


def version(top):
    with open(os.path.join(top, "pcq_codec.h"), encoding="utf-8") as f:
        m = re.search(r'^#define PCQ_VERSION_STRING "([^"]+)"', f.read(), re.M)
    if not m:
        sys.exit("pcq: no PCQ_VERSION_STRING in %s" % os.path.join(top, "pcq_codec.h"))
    return m.group(1)


class bdist_wheel_stdlib(Command):
    """bdist_wheel for a venv without the `wheel` package (a fresh `python3 -m venv` has only pip and
    setuptools, and no index may be reachable): the two things pip asks of it, egg2dist for the metadata and
    a wheel of the built tree, with the standard library. Used only when `wheel` cannot be imported."""
    description = "build a wheel (without the wheel package)"
    user_options = [("dist-dir=", "d", "directory for the wheel")]

    def initialize_options(self):
        self.dist_dir = None

    def finalize_options(self):
        self.dist_dir = self.dist_dir or "dist"

    @staticmethod
    def egg2dist(egginfo, distinfo):
        if os.path.exists(distinfo):
            shutil.rmtree(distinfo)
        shutil.copytree(egginfo, distinfo,
                        ignore=lambda d, names: {"PKG-INFO", "requires.txt", "SOURCES.txt", "not-zip-safe"})
        links = os.path.join(distinfo, "dependency_links.txt")
        if os.path.exists(links) and not open(links, encoding="utf-8").read().strip():
            os.unlink(links)
        shutil.copyfile(os.path.join(egginfo, "PKG-INFO"), os.path.join(distinfo, "METADATA"))

    def run(self):
        self.run_command("build")
        self.run_command("egg_info")
        build_lib = self.get_finalized_command("build").build_lib
        egginfo = self.get_finalized_command("egg_info").egg_info
        name, ver = self.distribution.get_name(), self.distribution.get_version()
        py = "cp%d%d" % sys.version_info[:2]
        tag = "%s-%s-%s" % (py, py, sysconfig.get_platform().replace("-", "_").replace(".", "_"))
        distinfo = "%s-%s.dist-info" % (name, ver)
        tmp = os.path.join(self.get_finalized_command("build").build_base, distinfo)
        self.egg2dist(egginfo, tmp)
        with open(os.path.join(tmp, "WHEEL"), "w", encoding="utf-8") as f:
            f.write("Wheel-Version: 1.0\nGenerator: pcq setup.py\nRoot-Is-Purelib: false\nTag: %s\n" % tag)
        os.makedirs(self.dist_dir, exist_ok=True)
        path = os.path.join(self.dist_dir, "%s-%s-%s.whl" % (name, ver, tag))
        record = []
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for root, arc in ((build_lib, ""), (tmp, distinfo + "/")):
                for d, _, files in sorted(os.walk(root)):
                    for fn in sorted(files):
                        full = os.path.join(d, fn)
                        rel = arc + os.path.relpath(full, root).replace(os.sep, "/")
                        data = open(full, "rb").read()
                        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                        record.append("%s,sha256=%s,%d" % (rel, digest.decode("ascii"), len(data)))
                        z.writestr(rel, data)
            record.append(distinfo + "/RECORD,,")
            z.writestr(distinfo + "/RECORD", "\n".join(record) + "\n")


class build_ext_tree(build_ext):
    """Compiles pcq's sources from the top of the tree with the shim. They are added only while compiling:
    the package's file lists (egg-info SOURCES.txt) refuse paths outside this directory."""

    def build_extension(self, ext):
        saved, deps = list(ext.sources), list(ext.depends)
        ext.sources = saved + [os.path.join(TOP, f) for f in SOURCES]
        ext.depends = deps + [os.path.join(TOP, f) for f in HEADERS]   # a changed header rebuilds
        try:
            super().build_extension(ext)
        finally:
            ext.sources, ext.depends = saved, deps


def commands():
    cmds = {"build_ext": build_ext_tree}
    try:
        import wheel.bdist_wheel  # noqa: F401  (setuptools finds it by itself)
    except ImportError:
        cmds["bdist_wheel"] = bdist_wheel_stdlib
    return cmds


TOP = source_dir()

setup(
    version=version(TOP),
    cmdclass=commands(),
    ext_modules=[Extension(
        "pcq._pcqlib",
        sources=["pcq/_pcqlib.c"],   # and SOURCES, added by build_ext_tree
        include_dirs=[TOP, os.path.join(TOP, "tools", "pcqdump")],
        libraries=["m"],
        extra_compile_args=["-std=c99"],
    )],
)
