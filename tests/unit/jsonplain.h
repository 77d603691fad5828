/* jsonplain.h: what json.c's scanner calls a plain integer, told from a
 * number's text, for the tests that compare its integer runs with yajl's
 * numbers (test_jsonscan, fuzz_jsonscan). */
#ifndef TFLAME_TEST_JSONPLAIN_H
#define TFLAME_TEST_JSONPLAIN_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* s[0..len) as a plain integer (no fraction nor exponent, at most 18
 * digits, no leading zero): its value in *v. */
static inline bool json_plain_text(const char *s, size_t len, long long *v)
{
	size_t i = len && s[0] == '-';
	if (len - i == 0 || len - i > 18 || (s[i] == '0' && len - i > 1))
		return false;
	for (size_t k = i; k < len; k++)
		if (s[k] < '0' || s[k] > '9')
			return false;
	char tmp[24];
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	*v = strtoll(tmp, NULL, 10);
	return true;
}

#endif
