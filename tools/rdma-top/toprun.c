// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "toprun.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "ticker.h"
#include "topfmt.h"
#include "topne.h"
#include "topsample.h"

/*
 * The sampling loop of -b and --textfile: refresh, one step (print a sample,
 * replace the file; nonzero ends the loop with failure), wait for the tick;
 * count steps at most, and signals end it cleanly.
 */
static int sample_loop(struct rd_cli *cli, struct rd_portwatch *pw, double interval,
		       unsigned long count, int (*step)(void *ctx, unsigned long sample), void *ctx)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, 0 };
	struct rd_ticker t;
	int ret;

	ret = rd_ticker_open(&t, -1, sigs);
	if (ret == 0 && interval > 0)
		ret = rd_ticker_arm(&t, interval);
	if (ret) {
		rd_cli_error(cli, "cannot set up the sampling loop: %s", strerror(-ret));
		rd_ticker_close(&t);
		return RD_EXIT_FAIL;
	}
	ret = RD_EXIT_OK;
	for (unsigned long sample = 1;; sample++) {
		unsigned int ev = 0;
		int signo;

		if (rd_portwatch_refresh(pw)) {
			rd_cli_error(cli, "out of memory");
			ret = RD_EXIT_FAIL;
			break;
		}
		if (step(ctx, sample)) {
			ret = RD_EXIT_FAIL;
			break;
		}
		if (count && sample >= count)
			break;
		/* With -i 0 only look for a signal; otherwise sleep until the tick. */
		rd_sysroot_forget();	/* no directory kept open while waiting */
		do {
			if (rd_ticker_wait(&t, interval > 0 ? -1 : 0, &ev, &signo))
				ev = RD_EV_SIGNAL;
		} while (interval > 0 && !ev);
		if (ev & RD_EV_SIGNAL)
			break;
	}
	rd_ticker_close(&t);
	return ret;
}

struct batch {
	struct rd_cli *cli;
	struct rd_portwatch *pw;
	struct rd_out *o;
};

/* -b: one sample on stdout. */
static int batch_step(void *ctx, unsigned long sample)
{
	struct batch *b = ctx;

	if (rd_top_print_sample(b->o, b->pw, sample, false, true))	/* reported at exit */
		return -EIO;
	rd_cli_flush_warnings(b->cli);	/* e.g. about a device that appeared */
	return 0;
}

int rd_top_run_batch(struct rd_cli *cli, struct rd_portwatch *pw, struct rd_out *o,
		     double interval, unsigned long count)
{
	struct batch b = { .cli = cli, .pw = pw, .o = o };

	return sample_loop(cli, pw, interval, count, batch_step, &b);
}

/* One metrics scrape into fp (the callback of rd_textfile_replace too). */
struct scrape {
	struct rd_cli *cli;
	struct rd_portwatch *pw;
	enum rd_top_fmt format;
};

static int write_scrape(FILE *fp, void *arg)
{
	struct scrape *s = arg;
	struct rd_device_list list = { 0 };
	const char *unknown = NULL;
	int ret;

	if (s->format != RD_TOP_NODE_EXPORTER)
		return rd_metrics_write(fp, s->pw, s->format == RD_TOP_OPENMETRICS);
	/* State, physical state, rate and device facts as they are now (not the netdev lists). */
	ret = rd_device_scan_flags(&s->cli->sr, &s->cli->devices, &list, &unknown, &s->cli->warnings,
				   RD_SCAN_NO_NETDEVS);
	if (ret == -ENODEV)	/* a -d device went away: the others still count */
		ret = rd_device_scan_flags(&s->cli->sr, NULL, &list, &unknown, &s->cli->warnings,
					   RD_SCAN_NO_NETDEVS);
	if (ret == -ENOMEM)
		return ret;
	ret = rd_nodeexp_write(fp, s->pw, ret ? NULL : &list, &s->cli->sr, &s->cli->warnings);
	rd_device_list_free(&list);
	return ret;
}

/* --textfile: the file replaced with one scrape. */
struct textfile {
	struct scrape *sc;
	const char *path;
	struct rd_outfile of;
};

static void textfile_error(struct rd_cli *cli, const char *path, int err, const char *why)
{
	rd_cli_error(cli, "%s: cannot write: %s%s", path, why,
		     err == -EACCES || err == -EPERM || err == -EROFS ?
			" (the directory must be writable: a temporary file is renamed over it)" : "");
}

static int textfile_step(void *ctx, unsigned long sample)
{
	struct textfile *tf = ctx;
	struct rd_cli *cli = tf->sc->cli;
	char why[160];
	int err = rd_outfile_replace(&tf->of, write_scrape, tf->sc, why, sizeof(why));

	(void)sample;
	rd_cli_flush_warnings(cli);
	if (err)
		textfile_error(cli, tf->path, err, why);
	return err;
}

int rd_top_run_textfile(struct rd_cli *cli, struct rd_portwatch *pw, enum rd_top_fmt format,
			const char *path, double interval, unsigned long count)
{
	struct scrape sc = { .cli = cli, .pw = pw, .format = format };
	struct textfile tf = { .sc = &sc, .path = path };
	char why[160];
	int err, ret;

	/* The directory once, before the first sample: a bad path fails at once. */
	err = rd_outfile_open(&tf.of, path, why, sizeof(why));
	if (err) {
		textfile_error(cli, path, err, why);
		return RD_EXIT_FAIL;
	}
	ret = sample_loop(cli, pw, interval, count, textfile_step, &tf);
	rd_outfile_close(&tf.of);
	return ret;
}

int rd_top_run_scrape(struct rd_cli *cli, struct rd_portwatch *pw, enum rd_top_fmt format)
{
	struct scrape sc = { .cli = cli, .pw = pw, .format = format };
	int ret;

	if (rd_portwatch_refresh(pw)) {
		rd_cli_error(cli, "out of memory");
		return RD_EXIT_FAIL;
	}
	ret = write_scrape(stdout, &sc);
	rd_cli_flush_warnings(cli);
	if (ret == -ENOMEM)
		rd_cli_error(cli, "out of memory");
	return ret ? RD_EXIT_FAIL : RD_EXIT_OK;	/* a write error is reported at exit */
}

int rd_top_run_once(struct rd_cli *cli, struct rd_portwatch *pw, struct rd_out *o)
{
	if (rd_portwatch_refresh(pw)) {
		rd_cli_error(cli, "out of memory");
		return RD_EXIT_FAIL;
	}
	if (cli->json)
		rd_out_list_begin(o, NULL);
	rd_top_print_sample(o, pw, 1, true, false);
	if (cli->json)
		rd_out_list_end(o);
	return RD_EXIT_OK;
}
