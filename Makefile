# SPDX-License-Identifier: GPL-2.0-only
#
# tern: top-level build and test entry points.  See README.md and
# docs/development.md.  Downloads and long builds are cached in $(TERN_CACHE)
# (default ~/.cache/tern); per-tree build output goes to build/.

TOP        := $(CURDIR)
TERN_CACHE ?= $(HOME)/.cache/tern
export TERN_CACHE
S          := $(TOP)/scripts
B          := $(TOP)/build

CC         ?= gcc
TERN_VERSION := 1.0.0

# make install / dkms-install (docs/development.md "Installing")
PREFIX       ?= /usr/local
DESTDIR      ?=
UDEVRULESDIR ?= /etc/udev/rules.d
MODPROBEDIR  ?= /etc/modprobe.d
DOCDIR       ?= $(PREFIX)/share/doc/tern
DKMS         ?= dkms
DKMS_SRCTREE ?= /usr/src
DKMS_TREE    ?= /var/lib/dkms
# more dkms options, e.g. "-k <kernel release> --kernelsourcedir <headers>"
DKMS_ARGS    ?=
DKMS_OPTS    = -m tern -v $(TERN_VERSION) --sourcetree $(DESTDIR)$(DKMS_SRCTREE) \
	       --dkmstree $(DESTDIR)$(DKMS_TREE) --installtree $(DESTDIR)/lib/modules \
	       $(if $(DESTDIR),--no-depmod) $(DKMS_ARGS)
CFLAGS_USER := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
	       -I$(TOP)/include/uapi/drm -I/usr/include/libdrm \
	       -I$(TOP)/userspace/include
LIBTERN_A   := $(B)/userspace/libtern.a
VM_TEST_SRCS := $(wildcard tests/vm/*.c)
VM_TESTS     := $(patsubst tests/vm/%.c,$(B)/tests/vm/%,$(VM_TEST_SRCS))

# keep the list below in step with the targets
.PHONY: all setup qemu module userspace libtern host-test vm-tests initramfs vm-test vm-shell \
	qtest kunit check test demo clean distclean help soak test-debug bench \
	trace-pictures install dkms-install dkms-remove install-test

all: qemu module userspace

help:
	@sed -n 's/^## //p' $(TOP)/Makefile

## make setup     install Debian packages, fetch kernel image, kernel and QEMU sources
setup:
	@$(S)/setup.sh

## make qemu      build QEMU with the tern device (qemu-device/ overlaid)
qemu: setup
	@$(S)/build-qemu.sh qemu

## make module    build drivers/accel/tern against the 6.12 headers in the cache (KDIR=... for others)
module:
	@$(S)/build-module.sh

## make userspace build libtern, the tools and examples, and the VM tests
userspace: libtern vm-tests

# libtern and its tools (userspace/Makefile); the statically linked tools and
# examples for the guest land in build/userspace/bin.
libtern:
	@if [ -f userspace/Makefile ]; then $(MAKE) -s -C userspace BUILD=$(B)/userspace all; fi

vm-tests: libtern
	@$(MAKE) -s $(VM_TESTS)

# VM tests are static binaries: raw ioctls through libdrm, or libtern.
$(B)/tests/vm/%: tests/vm/%.c tests/vm/tern_test.h include/uapi/drm/tern_accel.h $(wildcard $(LIBTERN_A))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -Itests/vm -static -pthread -o $@ $< $(wildcard $(LIBTERN_A)) -ldrm -lm

## make host-test run libtern's host unit tests (no device needed), under valgrind
host-test:
	@$(MAKE) -s -C userspace BUILD=$(B)/userspace check

## make initramfs the test VM's initramfs (module, tests, tools, busybox)
initramfs: module userspace
	@$(S)/build-initramfs.sh

## make vm-test   boot the VM and run the integration tests (TERN_VM_TESTS=regex)
vm-test: qemu initramfs
	@$(S)/vm-run.sh test

## make vm-shell  interactive shell in the VM with tern.ko loaded
vm-shell: qemu initramfs
	@$(S)/vm-run.sh shell

## make qtest    build and run the device model's qtest suite
qtest: setup
	@$(S)/build-qemu.sh qtest
	@$(S)/run-qtest.sh

## make kunit    run the driver's KUnit tests under UML (kunit.py)
kunit: setup
	@$(S)/run-kunit.sh

## make check    checkpatch --strict and sparse on the driver, userspace warnings
check: setup
	@$(S)/check.sh

## make test     everything above, then one line: N passed, N failed
test: setup
	@$(S)/test.sh

## make soak     the reliability VM tests run long (TERN_SOAK_RUNS boots)
soak: qemu initramfs
	@$(S)/soak.sh

## make test-debug the VM suite and a short soak on a lockdep/KASAN/kmemleak kernel
test-debug: qemu userspace
	@$(S)/debug-test.sh

## make demo     build everything, boot the VM and run the scheduler demo; writes its timeline SVG
demo: qemu initramfs
	@$(S)/vm-run.sh demo

## make trace-pictures record the scheduler timelines of docs/scheduler.md (docs/pictures)
trace-pictures: qemu initramfs
	@$(S)/vm-run.sh pictures

## make bench    one VM boot runs the benchmark suite; report in $TERN_BENCH_OUT or ~/.cache/tern/bench/<date>
bench: qemu initramfs
	@$(S)/bench.sh

## make install  libtern (.so, .a, header, pkg-config), tools, man pages, udev rule, modprobe.d example (PREFIX, DESTDIR)
install: libtern module
	@$(MAKE) -s -C userspace BUILD=$(B)/userspace PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) install
	install -D -m 0644 packaging/70-tern.rules $(DESTDIR)$(UDEVRULESDIR)/70-tern.rules
	install -d $(DESTDIR)$(MODPROBEDIR) $(DESTDIR)$(DOCDIR)
	$(S)/gen-modprobe.sh $(B)/tern.ko >$(DESTDIR)$(MODPROBEDIR)/tern.conf
	install -m 0644 docs/abi/sysfs-driver-tern docs/tracepoints.md $(DESTDIR)$(DOCDIR)/

## make dkms-install the module's sources to /usr/src/tern-<version>, then dkms add, build, install
dkms-install:
	rm -rf $(DESTDIR)$(DKMS_SRCTREE)/tern-$(TERN_VERSION)
	install -d $(DESTDIR)$(DKMS_SRCTREE)/tern-$(TERN_VERSION)/drivers/accel/tern \
		$(DESTDIR)$(DKMS_SRCTREE)/tern-$(TERN_VERSION)/include/uapi/drm
	install -m 0644 drivers/accel/tern/*.[ch] drivers/accel/tern/Makefile \
		drivers/accel/tern/Kconfig $(DESTDIR)$(DKMS_SRCTREE)/tern-$(TERN_VERSION)/drivers/accel/tern/
	install -D -m 0644 -t $(DESTDIR)$(DKMS_SRCTREE)/tern-$(TERN_VERSION)/drivers/accel/tern/tests \
		drivers/accel/tern/tests/*.c drivers/accel/tern/tests/Makefile
	install -m 0644 include/uapi/drm/tern_accel.h \
		$(DESTDIR)$(DKMS_SRCTREE)/tern-$(TERN_VERSION)/include/uapi/drm/
	sed 's/@VERSION@/$(TERN_VERSION)/' packaging/dkms.conf \
		>$(DESTDIR)$(DKMS_SRCTREE)/tern-$(TERN_VERSION)/dkms.conf
	install -d $(DESTDIR)$(DKMS_TREE)
	$(DKMS) add $(DKMS_OPTS)
	$(DKMS) build $(DKMS_OPTS)
	$(DKMS) install $(DKMS_OPTS)

## make install-test install everything into build/install-root and check it (part of make test)
install-test: libtern module
	@$(S)/install-test.sh

## make dkms-remove  undo dkms-install (every kernel)
dkms-remove:
	$(DKMS) remove $(DKMS_OPTS) $(if $(filter -k,$(DKMS_ARGS)),,--all)
	rm -rf $(DESTDIR)$(DKMS_SRCTREE)/tern-$(TERN_VERSION)

clean:
	rm -rf $(B)

## make distclean also drop the caches ($(TERN_CACHE))
distclean: clean
	rm -rf $(TERN_CACHE)
