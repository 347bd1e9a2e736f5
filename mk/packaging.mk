# SPDX-License-Identifier: MIT
# mk/packaging.mk - the packaging check, included by the top-level Makefile
# (include mk/*.mk); also usable alone: make -f mk/packaging.mk packaging-check
#
#   make packaging-check   bash ci/packaging.sh: make install / uninstall, the
#                          CMake package, add_subdirectory and FetchContent, a
#                          Meson subproject, pkg-config, ctest and meson test,
#                          the SPDX report, then ci/cflite-emulate.sh (about 3
#                          minutes on 2 cores; docs/packaging.md)
#
# Knobs, passed to the script: SPDX_STRICT=0 (only report a missing SPDX line),
# PACKAGING_CFLITE=0 (skip the ClusterFuzzLite emulation), PACKAGING_KEEP=1.

# Whatever the including Makefile's default goal is, this file does not change it.
PACKAGING_SAVED_GOAL := $(.DEFAULT_GOAL)

packaging-check:
	bash ci/packaging.sh

.PHONY: packaging-check

.DEFAULT_GOAL := $(PACKAGING_SAVED_GOAL)
