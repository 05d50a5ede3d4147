// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF program that spins, run by the kernel (BPF_PROG_TEST_RUN) for
 * about @seconds: samples land in its JITed code, which the kernel
 * announces with PERF_RECORD_KSYMBOL (and perf record synthesizes for
 * programs loaded before it started). Prints the program's tag.
 * Exit 2: the kernel refused to load or run it (no BPF, no JIT, no
 * permission), which the caller reports as a skip.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LOOPS	4000

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

int main(int argc, char **argv)
{
	/* r0 = 0; do r0 += 1; while (r0 < LOOPS); return 0 */
	struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 },
		{ .code = BPF_JMP | BPF_JLT | BPF_K, .dst_reg = BPF_REG_0, .off = -2, .imm = LOOPS },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	unsigned char packet[64] = { 0 };
	struct bpf_prog_info info;
	union bpf_attr attr;
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	struct timespec t0, t;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uintptr_t)prog;
	attr.insn_cnt = sizeof(prog) / sizeof(prog[0]);
	attr.license = (uintptr_t)"GPL";
	strcpy(attr.prog_name, "secmap_spin");
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0) {
		fprintf(stderr, "bpf_spin: BPF_PROG_LOAD: %s\n", strerror(errno));
		return 2;
	}
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) || !info.jited_prog_len) {
		fprintf(stderr, "bpf_spin: the program is not JITed\n");
		return 2;
	}
	printf("%02x%02x%02x%02x%02x%02x%02x%02x\n", info.tag[0], info.tag[1], info.tag[2],
	       info.tag[3], info.tag[4], info.tag[5], info.tag[6], info.tag[7]);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		memset(&attr, 0, sizeof(attr));
		attr.test.prog_fd = fd;
		attr.test.data_in = (uintptr_t)packet;
		attr.test.data_size_in = sizeof(packet);
		attr.test.repeat = 2000;
		if (sys_bpf(BPF_PROG_TEST_RUN, &attr)) {
			fprintf(stderr, "bpf_spin: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
			return 2;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	close(fd);
	return 0;
}
