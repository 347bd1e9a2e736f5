# SPDX-License-Identifier: MIT
# mk/wireshark.mk - the Wireshark plugin (wireshark/, GPL-2.0-or-later),
# included by the top-level Makefile (include mk/*.mk); nothing else in the
# project needs Wireshark.
#
#   make wireshark          wireshark/pcq.so against Debian's libwireshark-dev
#                           (pkg-config wireshark), with pcq_codec.c and
#                           pcq_calc.c compiled in, as a vendoring user would
#   make wireshark-asan     wireshark/pcq-asan.so, the same under ASan + UBSan
#   make wireshark-install  copies pcq.so into the personal plugin folder,
#                           ~/.local/lib/wireshark/plugins/<major.minor>/epan/
#   make wireshark-check    bash ci/wireshark-check.sh (wireshark/README.md)
#
# All .PHONY: a target named `wireshark` would otherwise be the folder, up to
# date, and build nothing.

# Whatever the including Makefile's default goal is, this file does not change it.
WIRESHARK_SAVED_GOAL := $(.DEFAULT_GOAL)

WS_PKG_CONFIG ?= pkg-config
WS_CC         ?= $(CC)
WS_CFLAGS     ?= -O2 -g
WS_WARN       := -std=c99 -Wall -Wextra
WS_SRCS       := wireshark/packet-pcq.c wireshark/pcq-track.c pcq_codec.c pcq_calc.c
WS_DEPS       := $(WS_SRCS) wireshark/pcq-track.h pcq_codec.h
WS_INSTALL_PACKAGES := libwireshark-dev libglib2.0-dev pkg-config

# Fails with what to install when pkg-config cannot find wireshark (its
# .pc also needs glib-2.0's, from libglib2.0-dev).
define ws_need_dev
	@if ! $(WS_PKG_CONFIG) --exists wireshark 2>/dev/null; then \
	  echo "make wireshark: Wireshark's development files are missing; install them with:" >&2; \
	  echo "  apt-get install -y $(WS_INSTALL_PACKAGES)" >&2; \
	  exit 1; \
	fi
endef

# ws_link OUTPUT EXTRA-FLAGS: -z defs makes a symbol libwireshark does not
# export a link error instead of a plugin that silently fails to load.
define ws_link
	$(WS_CC) -shared -fPIC -fvisibility=hidden $(WS_WARN) $(WS_CFLAGS) $(2) \
	  $$($(WS_PKG_CONFIG) --cflags wireshark) $(WS_SRCS) -Wl,-z,defs \
	  $$($(WS_PKG_CONFIG) --libs wireshark) -o $(1)
endef

wireshark:
	$(ws_need_dev)
	$(call ws_link,wireshark/pcq.so,)

wireshark-asan:
	$(ws_need_dev)
	$(call ws_link,wireshark/pcq-asan.so,-fsanitize=address$(comma)undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)

wireshark-install: wireshark
	@ver=$$($(WS_PKG_CONFIG) --modversion wireshark) && abi=$$(echo "$$ver" | cut -d. -f1,2) && \
	dir="$${HOME}/.local/lib/wireshark/plugins/$$abi/epan" && mkdir -p "$$dir" && \
	cp wireshark/pcq.so "$$dir/pcq.so" && echo "installed $$dir/pcq.so (Wireshark $$ver)"

wireshark-check:
	bash ci/wireshark-check.sh

.PHONY: wireshark wireshark-asan wireshark-install wireshark-check

comma := ,

.DEFAULT_GOAL := $(WIRESHARK_SAVED_GOAL)
