// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, inside the VM: a static program that does nothing. bench
 * times its exec as the floor of any process start-up on that machine, to
 * set against `secmap --version` (exec plus dynamic linking).
 */
int main(void)
{
	return 0;
}
