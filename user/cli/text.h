/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names come from the kernel, .ko files and recordings: any bytes but NUL.
 * cli/text.c: checking them as UTF-8 and making them safe to print.
 */
#ifndef SECMAP_TEXT_H
#define SECMAP_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * utf8_char_len(): the length of the valid UTF-8 character at @p (1 to 4),
 * or 0 for an invalid sequence (overlong, surrogate, past U+10FFFF, cut).
 */
size_t utf8_char_len(const unsigned char *p);
bool utf8_valid(const char *s);
/* A malloc()ed copy of @s with each byte of an invalid sequence as U+FFFD; NULL if no memory. */
char *utf8_replace_invalid(const char *s);

/*
 * @s for a terminal: unchanged if it holds no control character (C0, DEL,
 * C1) and is valid UTF-8; else a copy where each such byte is "\xNN"
 * (cut with "..." past 1 KiB). The copy lives until 8 more calls.
 */
const char *text_safe(const char *s);

#endif /* SECMAP_TEXT_H */
