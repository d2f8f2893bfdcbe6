// SPDX-License-Identifier: MIT
/*
 * A program outside the tern tree, built by the install test against the
 * installed libtern with `pkg-config --cflags --libs tern`: it must find
 * the header, link and run.  Prints the number of tern devices and the
 * library's answer to an unknown errno.
 */
#include <stdio.h>
#include <string.h>

#include <tern/tern.h>

int main(void)
{
	int n = tern_device_count();

	printf("tern devices: %d\n", n);
	printf("tern_strerror(-EIO): %s\n", tern_strerror(-5));
	return n < 0 || !strlen(tern_strerror(-5));
}
