/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A writer of JSON documents on one line: objects, arrays, strings,
 * unsigned integers, booleans and null.
 *
 * Every document cmabufctl prints starts with "format": JSON_FORMAT, which
 * changes only when a key changes meaning or goes away (adding keys does
 * not change it). Keys are the same on every kernel: what a kernel cannot
 * tell is null, never missing. Yes and no are true and false. A command
 * that fails before its document prints one of "command", "exit_status"
 * and "error" (main.c).
 */
#ifndef CMABUFCTL_JSON_H
#define CMABUFCTL_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#define JSON_FORMAT	1
#define JSON_MAX_DEPTH	8

/**
 * struct json - one document being written
 * @fp: where it goes
 * @depth: containers open, the document's own object included
 * @fields: members written so far in each open container
 * @closers: the character that closes each open container
 */
struct json {
	FILE *fp;
	unsigned int depth;
	unsigned int fields[JSON_MAX_DEPTH];
	char closers[JSON_MAX_DEPTH];
};

void json_string(FILE *fp, const char *s);
void json_begin(struct json *j, FILE *fp);
unsigned int json_documents(void);
void json_end(struct json *j);

/* A member of the current object, or with a NULL @key an array element. */
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, __u64 val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_close(struct json *j);

#endif /* CMABUFCTL_JSON_H */
