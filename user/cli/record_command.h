/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli/record_command.c: the COMMAND `secmap record` runs (typically perf
 * record): started with the signals it should see, passed SIGINT and
 * SIGTERM, waited for, and its status.
 */
#ifndef SECMAP_RECORD_COMMAND_H
#define SECMAP_RECORD_COMMAND_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

struct record_run {
	pid_t child;		/* -1: no COMMAND */
	int status;		/* COMMAND's, from waitpid() */
	bool child_done;
	bool stop;		/* a signal ended a recording without COMMAND */
};

/* @argv started in a child, with the signal mask @oldmask; its pid, or -1 (errno). */
pid_t start_command(char **argv, const sigset_t *oldmask);
/* What signalfd @sfd holds: COMMAND's exit noted, others passed to it (or stop). */
int handle_signals(int sfd, struct record_run *run);
/* COMMAND's exit status as a shell gives it; 0 without COMMAND. */
int command_status(const struct record_run *run);
/* Whether @path was changed at or after @since; a missing file says so itself later. */
bool written_since(const char *path, const struct timespec *since);

#endif /* SECMAP_RECORD_COMMAND_H */
