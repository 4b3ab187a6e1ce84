// SPDX-License-Identifier: GPL-2.0
/*
 * Opening cmabuf devices and issuing their ioctls.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev.h"
#include "msg.h"

/*
 * The instance of a command without -d: /dev/cmabuf where this user may
 * open it, else the first instance that it may (the udev rule gives the
 * named ones to group video and keeps /dev/cmabuf root's: a member of video
 * gets one of those), else /dev/cmabuf, whose open then says why not.
 */
static void dev_default(char *buf, size_t len)
{
	char paths[DEV_LIST_MAX][PATH_MAX];
	int i, n;

	snprintf(buf, len, "%s", DEV_DEFAULT);
	n = dev_list(paths, DEV_LIST_MAX);
	for (i = 0; i < n; i++) {
		if (!access(paths[i], R_OK | W_OK)) {
			snprintf(buf, len, "%s", paths[i]);
			return;
		}
	}
}

/**
 * dev_resolve() - turn a --device argument into a path
 * @arg: a path ("/dev/cmabuf-large"), a label ("large"), "default", or
 *	NULL for what dev_default() picks
 * @buf: room for the result
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *dev_resolve(const char *arg, char *buf, size_t len)
{
	if (!arg)
		dev_default(buf, len);
	else if (!strcmp(arg, "default"))
		snprintf(buf, len, "%s", DEV_DEFAULT);
	else if (strchr(arg, '/'))
		snprintf(buf, len, "%s", arg);
	else
		snprintf(buf, len, "%s-%s", DEV_DEFAULT, arg);
	return buf;
}

/* Every instance here, "a, b, c", into @buf; how many there are. */
static int dev_list_text(char *buf, size_t len)
{
	char paths[DEV_LIST_MAX][PATH_MAX];
	size_t off = 0;
	int i, n;

	buf[0] = '\0';
	n = dev_list(paths, DEV_LIST_MAX);
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				paths[i]);
	return n < 0 ? 0 : n;
}

/* A missing node: name the ones there are, or why there are none. */
static void dev_explain_missing(const char *path)
{
	char list[DEV_LIST_MAX * 32];

	if (dev_list_text(list, sizeof(list)) > 0)
		msg_err("%s: no such device; the instances here are %s", path, list);
	else if (!access(DEV_MODULE_SYSFS, F_OK))
		msg_err("%s: no such device, and cmabuf.ko has no instance (no \"linux,cmabuf\" node, no default CMA area or default_instance=0)",
			path);
	else
		msg_err("%s: no such device: cmabuf.ko is not loaded (modprobe cmabuf)",
			path);
}

#define DEV_NAME_MAX	64	/* user and group names, as "%63[^:]" reads */

/*
 * The name of @id in @file, a passwd or group file ("name:x:id:..."), or
 * the number. Read by hand: static binaries cannot use NSS.
 */
static const char *dev_id_name(const char *file, unsigned int id, char *buf,
			       size_t len)
{
	char line[512], name[DEV_NAME_MAX];
	unsigned int n;
	FILE *fp;

	snprintf(buf, len, "%u", id);
	fp = fopen(file, "re");
	if (!fp)
		return buf;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%63[^:]:%*[^:]:%u:", name, &n) == 2 && n == id) {
			snprintf(buf, len, "%s", name);
			break;
		}
	}
	fclose(fp);
	return buf;
}

/* "crw-rw----" */
static void dev_mode_text(mode_t mode, char *buf)
{
	static const char rwx[] = "rwxrwxrwx";
	int i;

	buf[0] = S_ISCHR(mode) ? 'c' : S_ISDIR(mode) ? 'd' : '-';
	for (i = 0; i < 9; i++)
		buf[i + 1] = mode & (0400 >> i) ? rwx[i] : '-';
	buf[10] = '\0';
}

/**
 * dev_access_hint() - what it takes to open a node one may not open
 * @path: the node
 * @buf: the hint, one clause
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *dev_access_hint(const char *path, char *buf, size_t len)
{
	char mode[11], user[DEV_NAME_MAX], group[DEV_NAME_MAX];
	const char *base = strrchr(path, '/');
	struct stat st;

	if (stat(path, &st)) {
		snprintf(buf, len, "run as root");
		return buf;
	}
	dev_mode_text(st.st_mode, mode);
	dev_id_name("/etc/passwd", st.st_uid, user, sizeof(user));
	dev_id_name("/etc/group", st.st_gid, group, sizeof(group));
	if (st.st_gid && (st.st_mode & 0060))
		snprintf(buf, len,
			 "%s is %s %s:%s: join group %s (and log in again) or run as root",
			 path, mode, user, group, group);
	else if (!strcmp(base ? base + 1 : path, "cmabuf"))
		snprintf(buf, len,
			 "%s is %s %s:%s: the default CMA area, which other drivers depend on, is root's unless the administrator gives it out (60-cmabuf.rules); use a named instance (cmabufctl info lists them) or run as root",
			 path, mode, user, group);
	else
		snprintf(buf, len,
			 "%s is %s %s:%s, for root only: install the udev rule 60-cmabuf.rules (group video) or run as root",
			 path, mode, user, group);
	return buf;
}

/* Open @path with @flags; 0 or -errno, nothing printed. */
int dev_try_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	return fd >= 0 ? fd : -errno;
}

/* Print the one line that explains why dev_try_open() failed with @err. */
void dev_explain_open(const char *path, int err)
{
	char hint[PATH_MAX + 160];

	switch (-err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		dev_explain_missing(path);
		break;
	case EACCES:
	case EPERM:
		msg_err("%s: permission denied: %s", path,
			dev_access_hint(path, hint, sizeof(hint)));
		break;
	default:
		msg_err("%s: %s", path, strerror(-err));
	}
}

/* The one line for CMABUF_IOC_INFO's @err on @path. */
void dev_explain_info(const char *path, int err)
{
	if (err == -ENOTTY)
		msg_err("%s: not a cmabuf device", path);
	else
		msg_err("%s: CMABUF_IOC_INFO: %s", path, strerror(-err));
}

/*
 * Open the instance @path read-write, a cmabuf device (INFO answers): the
 * fd, or -errno after the one line that says why not.
 */
int dev_open(const char *path)
{
	int fd = dev_try_open(path, O_RDWR), ret;
	struct dev_info di;

	if (fd < 0) {
		dev_explain_open(path, fd);
		return fd;
	}
	ret = dev_info(fd, &di);
	if (ret == -ENOTTY) {
		dev_explain_info(path, ret);
		close(fd);
		return ret;
	}
	return fd;
}

/* ioctl() restarted on EINTR; 0 or -errno. Also for other drivers' devices. */
int dev_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

/*
 * The area's free bytes, and its size where the driver does not know it
 * from the area's node, from CMA sysfs (7.2 has total_pages and
 * available_pages), where INFO does not tell them (a kernel without
 * cma_get_available_pages(): Debian's): %CMABUF_INFO_AREA_STATS then says
 * they are known, and @di says who told.
 */
void dev_area_stats(struct dev_info *di)
{
	struct cmabuf_info *i = &di->info;
	__u64 total, avail;

	if (i->flags & CMABUF_INFO_AREA_STATS || !i->page_size ||
	    dev_area_sysfs_read(di->area, "total_pages", &total) ||
	    dev_area_sysfs_read(di->area, "available_pages", &avail))
		return;
	if (i->total_bytes)
		di->size_from_node = true;
	else
		i->total_bytes = total * i->page_size;
	di->stats_from_sysfs = true;
	i->free_bytes = avail * i->page_size;
	i->used_bytes = (total - avail) * i->page_size;
	i->flags |= CMABUF_INFO_AREA_STATS;
}

/* CMABUF_IOC_INFO into @di, completed from CMA sysfs; 0 or -errno. */
int dev_info(int fd, struct dev_info *di)
{
	int ret;

	memset(di, 0, sizeof(*di));
	di->info.area_name_ptr = (unsigned long)di->area;
	di->info.area_name_size = sizeof(di->area);
	ret = dev_ioctl(fd, CMABUF_IOC_INFO, &di->info);
	if (!ret)
		dev_area_stats(di);
	return ret;
}

/* An ioctl's negative errno as words; ENOTTY means the file is not ours. */
const char *dev_strerror(int err)
{
	if (err == -ENOTTY)
		return "not a cmabuf device";
	return strerror(-err);
}

/* @data carries size, align, fd_flags and flags in; the rest must be 0. */
int dev_alloc(int fd, struct cmabuf_alloc_data *data)
{
	return dev_ioctl(fd, CMABUF_IOC_ALLOC, data);
}

/* A read-write dma-buf of @size bytes with @strategy into *@buf_fd. */
int dev_alloc_fd(int fd, __u64 size, unsigned int strategy, int *buf_fd)
{
	struct cmabuf_alloc_data d = {
		.size = size,
		.fd_flags = O_RDWR | O_CLOEXEC,
		.flags = strategy,
	};
	int ret;

	ret = dev_alloc(fd, &d);
	if (!ret)
		*buf_fd = d.fd;
	return ret;
}

int dev_phys(int fd, int dmabuf_fd, struct cmabuf_phys *phys)
{
	memset(phys, 0, sizeof(*phys));
	phys->fd = dmabuf_fd;
	return dev_ioctl(fd, CMABUF_IOC_PHYS, phys);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * Every /dev/cmabuf and /dev/cmabuf-<label>, sorted by name.
 * Return: how many were found (at most @max), or -errno.
 */
int dev_list(char paths[][PATH_MAX], int max)
{
	struct dirent *de;
	int n = 0;
	DIR *dir;

	dir = opendir(DEV_DIR);
	if (!dir)
		return -errno;
	while (n < max && (de = readdir(dir))) {
		if (strcmp(de->d_name, "cmabuf") &&
		    strncmp(de->d_name, "cmabuf-", strlen("cmabuf-")))
			continue;
		snprintf(paths[n++], PATH_MAX, "%s/%s", DEV_DIR, de->d_name);
	}
	closedir(dir);
	qsort(paths, n, PATH_MAX, cmp_path);
	return n;
}

/* The first line of @path, without its newline; 0 or -errno. */
int dev_read_line(const char *path, char *buf, size_t len)
{
	FILE *fp;
	int ret = 0;

	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	if (fgets(buf, len, fp))
		buf[strcspn(buf, "\n")] = '\0';
	else
		ret = -EIO;
	fclose(fp);
	return ret;
}

/* A number from @dir/@name/@file; 0 or -errno. */
static int dev_read_u64(const char *dir, const char *name, const char *file,
			__u64 *val)
{
	char path[PATH_MAX], line[32], *end;
	unsigned long long v;
	int ret;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, name, file);
	ret = dev_read_line(path, line, sizeof(line));
	if (ret)
		return ret;
	errno = 0;
	v = strtoull(line, &end, 10);
	if (errno || end == line || *end)
		return -EIO;
	*val = v;
	return 0;
}

/*
 * A number from the CMA debugfs file @file of the area @area, such as
 * "used" (pages allocated from it). Return: 0 or -errno.
 */
int dev_area_read(const char *area, const char *file, __u64 *val)
{
	return dev_read_u64(CMA_DEBUGFS, area, file, val);
}

/*
 * A number from the world-readable CMA sysfs directory of @area, such as
 * "total_pages". Return: 0 or -errno.
 */
int dev_area_sysfs_read(const char *area, const char *file, __u64 *val)
{
	return dev_read_u64(CMA_SYSFS, area, file, val);
}

/*
 * The largest free range of the area in bytes, from CMA debugfs "maxchunk":
 * 0 where only root may read it, %DEV_UNTOLD where the kernel has no CMA
 * debugfs (Debian's kernels).
 */
__u64 dev_area_largest_free(const struct dev_info *di)
{
	__u64 pages;
	int ret;

	ret = dev_area_read(di->area, "maxchunk", &pages);
	if (ret == -EACCES || ret == -EPERM)
		return 0;
	if (ret)
		return DEV_UNTOLD;
	return pages * di->info.page_size;
}

/*
 * A file of the instance @path ("/dev/cmabuf-general") in sysfs, such as
 * "area" or "stats/live_bytes", as text. Return: 0 or -errno.
 */
int dev_sysfs_read(const char *path, const char *file, char *buf, size_t len)
{
	const char *name = strrchr(path, '/');
	char sysfs[PATH_MAX];

	snprintf(sysfs, sizeof(sysfs), "%s/%s/%s", MISC_SYSFS,
		 name ? name + 1 : path, file);
	return dev_read_line(sysfs, buf, len);
}

/*
 * A number from the sysfs directory of the instance @path, such as
 * "releasing_bytes" or "unprivileged_max_bytes". Return: 0 or -errno.
 */
int dev_sysfs_u64(const char *path, const char *file, __u64 *val)
{
	const char *name = strrchr(path, '/');

	return dev_read_u64(MISC_SYSFS, name ? name + 1 : path, file, val);
}

/*
 * Write @text into the sysfs file @file of the instance @path ("reserve").
 * Return: 0 or -errno, the store's own (EINVAL, ENOSPC) included.
 */
int dev_sysfs_write(const char *path, const char *file, const char *text)
{
	const char *name = strrchr(path, '/');
	char sysfs[PATH_MAX];
	size_t len = strlen(text);
	int fd, ret = 0;

	snprintf(sysfs, sizeof(sysfs), "%s/%s/%s", MISC_SYSFS,
		 name ? name + 1 : path, file);
	fd = open(sysfs, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/*
 * The instance's cap on callers without CAP_SYS_ADMIN, from sysfs: the
 * bytes their live buffers hold and the cap, 0 for none. Return: whether
 * both could be read (a driver before the cap has neither).
 */
bool dev_cap_read(const char *path, __u64 *held, __u64 *max)
{
	return !dev_sysfs_u64(path, "unprivileged_bytes", held) &&
	       !dev_sysfs_u64(path, "unprivileged_max_bytes", max);
}

/*
 * Wait up to @timeout_ms for the instance @path to have released every
 * buffer freed so far (sysfs releasing_bytes back to 0): freed pages go
 * back to CMA in the background. Return: 0 (also for a driver that frees
 * at once), -ETIMEDOUT or -errno.
 */
int dev_wait_released(const char *path, unsigned int timeout_ms)
{
	unsigned int waited = 0;
	char line[32];
	int ret;

	for (;;) {
		ret = dev_sysfs_read(path, "releasing_bytes", line,
				     sizeof(line));
		if (ret == -ENOENT)
			return 0;
		if (ret)
			return ret;
		if (strtoull(line, NULL, 10) == 0)
			return 0;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		usleep(1000);
		waited++;
	}
}
