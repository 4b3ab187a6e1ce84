/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A writer of flat JSON objects, one per line.
 */
#ifndef CMABUFCTL_JSON_H
#define CMABUFCTL_JSON_H

#include <stdio.h>
#include <linux/types.h>

/**
 * struct json - one object being written
 * @fp: where it goes
 * @fields: members written so far
 */
struct json {
	FILE *fp;
	unsigned int fields;
};

void json_string(FILE *fp, const char *s);
void json_begin(struct json *j, FILE *fp);
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, __u64 val);
void json_end(struct json *j);

#endif /* CMABUFCTL_JSON_H */
