// SPDX-License-Identifier: GPL-2.0
/*
 * Names come from the kernel, .ko files and recordings: any bytes but NUL.
 * What the outputs make of them: valid UTF-8 for JSON (json_out.c), and
 * text a terminal shows rather than acts on.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

size_t utf8_char_len(const unsigned char *p)
{
	unsigned int c = p[0], n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;	/* a continuation byte, an overlong lead (c0, c1), or > U+10FFFF */
	cp = c & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;	/* also stops at the NUL */
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates, beyond Unicode. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		n = utf8_char_len(p);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

char *utf8_replace_invalid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	/* At worst each byte becomes the 3 bytes of U+FFFD. */
	char *out = malloc(3 * strlen(s) + 1), *o = out;
	size_t n;

	if (!out)
		return NULL;
	while (*p) {
		n = utf8_char_len(p);
		if (n) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	*o = '\0';
	return out;
}

/* Code points a terminal acts on: C0 controls, DEL, C1 controls. */
static bool is_control(const unsigned char *p, size_t n)
{
	return (n == 1 && (p[0] < 0x20 || p[0] == 0x7f)) ||
	       (n == 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f);
}

#define TEXT_SAFE_SLOTS 8
#define TEXT_SAFE_SIZE 1024

const char *text_safe(const char *s)
{
	static char slots[TEXT_SAFE_SLOTS][TEXT_SAFE_SIZE];
	static unsigned int next;
	const unsigned char *p = (const unsigned char *)s;
	char *out, *o;
	size_t n, i;

	if (!s)
		return s;
	/* Printable ASCII, nearly every name: one compare a byte. */
	while (*p >= 0x20 && *p < 0x7f)
		p++;
	for (; *p; p += n) {
		n = utf8_char_len(p);
		if (!n || is_control(p, n))
			break;
	}
	if (!*p)
		return s;	/* nothing to escape: the common case, no copy */
	out = slots[next++ % TEXT_SAFE_SLOTS];
	o = out;
	for (p = (const unsigned char *)s; *p; p += n) {
		/* Room for one escaped byte ("\xNN") per byte of a character, and "...". */
		if (o - out > TEXT_SAFE_SIZE - 4 * 4 - 4) {
			strcpy(o, "...");
			return out;
		}
		n = utf8_char_len(p);
		if (n && !is_control(p, n)) {
			memcpy(o, p, n);
			o += n;
			continue;
		}
		for (i = 0; i < (n ? n : 1); i++)
			o += sprintf(o, "\\x%02x", p[i]);
		n = n ? n : 1;
	}
	*o = '\0';
	return out;
}
