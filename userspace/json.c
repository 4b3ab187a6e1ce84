// SPDX-License-Identifier: GPL-2.0
/*
 * JSON documents, each on one line.
 */
#include <stdlib.h>

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

/* A new document: its object, its format first. */
/* Documents begun so far. */
static unsigned int json_begun;

unsigned int json_documents(void)
{
	return json_begun;
}

void json_begin(struct json *j, FILE *fp)
{
	json_begun++;
	j->fp = fp;
	j->depth = 1;
	j->fields[0] = 0;
	j->closers[0] = '}';
	fputc('{', fp);
	json_u64(j, "format", JSON_FORMAT);
}

/* Close whatever is still open, then the document; one line. */
void json_end(struct json *j)
{
	while (j->depth > 1)
		json_close(j);
	fputs("}\n", j->fp);
	j->depth = 0;
}

static void json_key(struct json *j, const char *key)
{
	if (j->fields[j->depth - 1]++)
		fputs(", ", j->fp);
	if (key) {
		json_string(j->fp, key);
		fputs(": ", j->fp);
	}
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

void json_bool(struct json *j, const char *key, bool val)
{
	json_key(j, key);
	fputs(val ? "true" : "false", j->fp);
}

void json_null(struct json *j, const char *key)
{
	json_key(j, key);
	fputs("null", j->fp);
}

/* Our documents nest three deep; deeper is a bug of ours. */
static void json_open(struct json *j, const char *key, char open, char close)
{
	if (j->depth == JSON_MAX_DEPTH)
		abort();
	json_key(j, key);
	fputc(open, j->fp);
	j->fields[j->depth] = 0;
	j->closers[j->depth] = close;
	j->depth++;
}

void json_object(struct json *j, const char *key)
{
	json_open(j, key, '{', '}');
}

void json_array(struct json *j, const char *key)
{
	json_open(j, key, '[', ']');
}

/* Close the innermost object or array. */
void json_close(struct json *j)
{
	if (j->depth > 1)
		fputc(j->closers[--j->depth], j->fp);
}
