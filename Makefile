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
CFLAGS_USER := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
	       -I$(TOP)/include/uapi/drm -I/usr/include/libdrm
VM_TEST_SRCS := $(wildcard tests/vm/*.c)
VM_TESTS     := $(patsubst tests/vm/%.c,$(B)/tests/vm/%,$(VM_TEST_SRCS))

.PHONY: all setup qemu module userspace vm-tests initramfs vm-test vm-shell \
	qtest kunit check test demo clean distclean help

all: qemu module userspace

help:
	@sed -n 's/^## //p' $(TOP)/Makefile

## make setup     install Debian packages, fetch kernel image, kernel and QEMU sources
setup:
	@$(S)/setup.sh

## make qemu      build QEMU with the tern device (qemu-device/ overlaid)
qemu: setup
	@$(S)/build-qemu.sh qemu

## make module    build drivers/accel/tern against the installed headers (KDIR=...)
module:
	@$(S)/build-module.sh

## make userspace build the VM tests (static) and the userspace library and tools
userspace: vm-tests

vm-tests: $(VM_TESTS)

$(B)/tests/vm/%: tests/vm/%.c tests/vm/tern_test.h include/uapi/drm/tern_accel.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -Itests/vm -static -o $@ $< -ldrm

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

## make demo     build everything, boot the VM and run the scheduler demo
demo: qemu initramfs
	@$(S)/vm-run.sh demo

clean:
	rm -rf $(B)

## make distclean also drop the caches ($(TERN_CACHE))
distclean: clean
	rm -rf $(TERN_CACHE)
