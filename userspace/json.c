// SPDX-License-Identifier: GPL-2.0
/*
 * JSON-lines output: flat objects of strings and unsigned integers.
 */
#include "json.h"

/* Write @s as a quoted JSON string (RFC 8259 escapes; UTF-8 passes). */
void json_string(FILE *fp, const char *s)
{
	const unsigned char *p;

	fputc('"', fp);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		case '\b':
			fputs("\\b", fp);
			break;
		case '\f':
			fputs("\\f", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\r':
			fputs("\\r", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		default:
			if (*p < 0x20)
				fprintf(fp, "\\u%04x", *p);
			else
				fputc(*p, fp);
		}
	}
	fputc('"', fp);
}

void json_begin(struct json *j, FILE *fp)
{
	j->fp = fp;
	j->fields = 0;
	fputc('{', fp);
}

static void json_key(struct json *j, const char *key)
{
	if (j->fields++)
		fputs(", ", j->fp);
	json_string(j->fp, key);
	fputs(": ", j->fp);
}

void json_str(struct json *j, const char *key, const char *val)
{
	json_key(j, key);
	json_string(j->fp, val);
}

void json_u64(struct json *j, const char *key, __u64 val)
{
	json_key(j, key);
	fprintf(j->fp, "%llu", val);
}

void json_end(struct json *j)
{
	fputs("}\n", j->fp);
}
