# SPDX-License-Identifier: GPL-2.0
# secmap top level. Build outputs go to build/ (ignored by git).
#
#   make             userspace (user/secmap) and secmap.ko for the default kernel
#   make kmod-matrix secmap.ko for every target kernel -> build/kernels/TAG/
#   make check       set-up, host tests, and the VM lane on every target kernel
#   make demo        boot a VM, load secmap and real modules, show `secmap dump`
#   make install     secmap, libsecmap, headers, man pages, completion under
#                    $(DESTDIR)$(PREFIX), and the DKMS source tree under
#                    $(DESTDIR)/usr/src/secmap-VERSION
#   make bench       the resolver on the host, secmap report against perf report and secmap
#                    inject against perf inject -b; in a VM, secmap dump --json against the
#                    sysfs walk (100 and 1000 extra modules) and secmap record against perf record
#   make fuzz        libFuzzer targets for the parsers, FUZZ_SECONDS (60) each
SECMAP_CACHE ?= /var/cache/secmap
# 6.12-debug: 6.12 built with KASAN, lockdep, kmemleak and UBSAN (scripts/debug-kernel.config)
KERNELS ?= 5.10 6.1 6.12 sid 6.12-debug
DEMO_KERNEL ?= 6.12
BENCH_KERNELS ?= 6.12
BUILD := $(CURDIR)/build

# The host kernel has no module support here; build for the first target
# unless the running kernel has a build tree.
HOST_KDIR := /lib/modules/$(shell uname -r)/build
KDIR ?= $(if $(wildcard $(HOST_KDIR)),$(HOST_KDIR),$(SECMAP_CACHE)/kernels/6.1/kdir)

all: user kmod

user:
	$(MAKE) -C user

kmod:
	$(MAKE) -C kmod KDIR=$(KDIR) W=1

setup:
	bash scripts/setup.sh

# make sign [SIGN_KO=kmod/secmap.ko] [SIGN_KEY=...] [SIGN_CERT=...] [KDIR=...]:
# sign a built secmap.ko as DKMS does, with DKMS's machine owner key by
# default and the kernel's sign-file and hash (for Secure Boot and
# lockdown: Documentation/secmap.rst, "Lockdown and signed modules").
SIGN_KO ?= kmod/secmap.ko
SIGN_KEY ?= /var/lib/dkms/mok.key
SIGN_CERT ?= /var/lib/dkms/mok.pub
sign:
	@test -f $(SIGN_KO) || { echo "sign: no $(SIGN_KO): build it first (make kmod)" >&2; exit 1; }
	@test -r $(SIGN_KEY) && test -r $(SIGN_CERT) || { echo "sign: no key $(SIGN_KEY) and \
		certificate $(SIGN_CERT): dkms makes them at its first build, or give SIGN_KEY and \
		SIGN_CERT" >&2; exit 1; }
	@test -x $(KDIR)/scripts/sign-file || { echo "sign: no $(KDIR)/scripts/sign-file: \
		give KDIR, the kernel's build tree" >&2; exit 1; }
	$(KDIR)/scripts/sign-file $$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' \
		$(KDIR)/.config 2>/dev/null | grep . || echo sha512) $(SIGN_KEY) $(SIGN_CERT) $(SIGN_KO)

kmod-matrix: setup
	@for k in $(KERNELS); do bash scripts/kbuild.sh $$k $(BUILD)/kernels/$$k || exit 1; done

guest: setup
	$(MAKE) guest-build

# The VM userspace alone, for scripts/check.sh, which has run setup already.
guest-build:
	$(MAKE) -C user OUTPUT=$(BUILD)/guest/ all static
	mkdir -p $(BUILD)/guest/tests
	$(MAKE) -C selftests/secmap OUTPUT=$(BUILD)/guest/tests/ LIBSECMAP=$(BUILD)/guest/libsecmap.a
	$(MAKE) guest-agent

# The example agent (Documentation/examples/agent.c), built as its users
# would: against the installed library, through pkg-config. Linked with
# libsecmap.a: the VMs have no libsecmap.so.
AGENT_ROOT = $(BUILD)/guest/root
AGENT_PC = PKG_CONFIG_PATH=$(AGENT_ROOT)/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$(AGENT_ROOT) \
	pkg-config
guest-agent:
	$(MAKE) -s -C user OUTPUT=$(BUILD)/guest/ install DESTDIR=$(AGENT_ROOT) PREFIX=/usr
	$(CC) -Wall -Wextra -Werror $$($(AGENT_PC) --cflags libsecmap) \
		-o $(BUILD)/guest/secmap-agent Documentation/examples/agent.c \
		$(AGENT_ROOT)/usr/lib/libsecmap.a \
		$$($(AGENT_PC) --static --libs libsecmap | sed 's/-lsecmap\b//')

fuzz: setup
	$(MAKE) -C user OUTPUT=$(BUILD)/fuzz/ fuzz FUZZ_SECONDS=$(or $(FUZZ_SECONDS),60)

check:
	SECMAP_KERNELS="$(KERNELS)" bash scripts/check.sh

bench: guest
	$(MAKE) -C user OUTPUT=$(BUILD)/bench-host/ bench
	bash scripts/bench-report.sh $(BUILD)/bench-host/secmap $(BUILD)/bench-host/report 12
	bash scripts/bench-inject.sh $(BUILD)/bench-host/secmap $(BUILD)/bench-host/inject 12
	mkdir -p $(BUILD)/guest/bench
	$(MAKE) -C selftests/secmap OUTPUT=$(BUILD)/guest/bench/ LIBSECMAP=$(BUILD)/guest/libsecmap.a bench
	@for k in $(BENCH_KERNELS); do \
		bash scripts/kbuild.sh $$k $(BUILD)/kernels/$$k && \
		SECMAP_VM_TIMEOUT=1200 bash scripts/vm-run.sh $$k bench $(BUILD) || exit 1; \
	done

demo: guest
	bash scripts/kbuild.sh $(DEMO_KERNEL) $(BUILD)/kernels/$(DEMO_KERNEL)
	bash scripts/vm-run.sh $(DEMO_KERNEL) demo $(BUILD)

clean:
	$(MAKE) -C user clean
	-$(MAKE) -C kmod KDIR=$(KDIR) clean
	rm -rf $(BUILD)

# --- install ----------------------------------------------------------------
PREFIX ?= /usr/local
INSTALL ?= install
# The DKMS package version, from dkms.conf (PACKAGE_VERSION="0.1.0").
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="*\([^"]*\)"*$$/\1/p' $(CURDIR)/dkms.conf)
DKMS_SRC = $(DESTDIR)/usr/src/secmap-$(VERSION)
# Sources only: kbuild's generated *.mod.c must not be shipped.
DKMS_KMOD_FILES = $(filter-out %.mod.c,$(wildcard kmod/*.c)) $(wildcard kmod/*.h) \
	kmod/Kbuild kmod/Makefile

install: install-user install-dkms

# For the install and DKMS tests: the version install-dkms installs.
print-version:
	@echo $(VERSION)

install-user:
	$(MAKE) -C user install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

# Replaced whole, so that a file dropped from kmod/ does not linger.
install-dkms:
	@test -n "$(VERSION)" || { echo "no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
	rm -rf $(DKMS_SRC)
	$(INSTALL) -d $(DKMS_SRC)/kmod $(DKMS_SRC)/uapi/linux
	$(INSTALL) -m 0644 dkms.conf $(DKMS_SRC)/dkms.conf
	$(INSTALL) -m 0644 $(DKMS_KMOD_FILES) $(DKMS_SRC)/kmod/
	$(INSTALL) -m 0644 uapi/linux/*.h $(DKMS_SRC)/uapi/linux/

uninstall:
	$(MAKE) -C user uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	rm -rf $(DKMS_SRC)

.PHONY: all user kmod sign setup fuzz kmod-matrix guest guest-build guest-agent check demo bench clean print-version
.PHONY: install install-user install-dkms uninstall
