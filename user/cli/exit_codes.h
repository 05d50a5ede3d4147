/* SPDX-License-Identifier: GPL-2.0 */
/* Exit statuses of the secmap tool: scripts depend on them, so only append. */
#ifndef SECMAP_EXIT_CODES_H
#define SECMAP_EXIT_CODES_H

#define SECMAP_EXIT_OK		0	/* success */
#define SECMAP_EXIT_FAILURE	1	/* anything not covered below */
#define SECMAP_EXIT_USAGE	2	/* bad command line */
#define SECMAP_EXIT_NO_KMOD	3	/* generic netlink family "secmap" missing */
#define SECMAP_EXIT_PERM	4	/* kernel refused: missing privilege */
#define SECMAP_EXIT_NOT_FOUND	5	/* a module named on the command line is not loaded */
/* dump: a module's .ko has another build-id than the loaded module (--force overrides) */
#define SECMAP_EXIT_KO_MISMATCH	6
/* dump: no .ko found for a module named on the command line (--no-ko skips the search) */
#define SECMAP_EXIT_NO_KO	7
/* record, inject, archive: an input file is malformed, truncated or of a kind not supported */
#define SECMAP_EXIT_BAD_INPUT	8

#endif /* SECMAP_EXIT_CODES_H */
