// SPDX-License-Identifier: GPL-2.0
/*
 * The COMMAND of `secmap record -- COMMAND`: started with the signals the
 * recorder blocks for itself unblocked, passed SIGINT and SIGTERM as perf
 * passes them to its workload, reaped, and its status returned as the
 * recorder's own.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record_command.h"
#include "secmap_cli.h"

int handle_signals(int sfd, struct record_run *run)
{
	struct signalfd_siginfo si;
	int status;
	pid_t pid;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (run->child <= 0 || run->child_done)
				continue;
			pid = waitpid(run->child, &status, WNOHANG);
			if (pid == run->child) {
				run->status = status;
				run->child_done = true;
			}
		} else if (run->child > 0 && !run->child_done) {
			/* As perf passes them to its workload: COMMAND decides when to end. */
			kill(run->child, (int)si.ssi_signo);
		} else {
			run->stop = true;
		}
	}
	return 0;
}

bool written_since(const char *path, const struct timespec *since)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return true;
	return st.st_mtim.tv_sec > since->tv_sec ||
	       (st.st_mtim.tv_sec == since->tv_sec && st.st_mtim.tv_nsec >= since->tv_nsec);
}

pid_t start_command(char **argv, const sigset_t *oldmask)
{
	pid_t pid = fork();

	if (pid == 0) {
		sigprocmask(SIG_SETMASK, oldmask, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "Error: record: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int command_status(const struct record_run *run)
{
	if (run->child <= 0)
		return SECMAP_EXIT_OK;
	if (WIFEXITED(run->status))
		return WEXITSTATUS(run->status);
	if (WIFSIGNALED(run->status))
		return 128 + WTERMSIG(run->status);
	return SECMAP_EXIT_FAILURE;
}
