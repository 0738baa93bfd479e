// SPDX-License-Identifier: MIT
/* rdma-top's screen: the loop (rd_ticker), keys, resize. */
#define _GNU_SOURCE
#include "topui.h"
#include "topdraw.h"

#include <errno.h>
#include <term.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const double steps[] = { 0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 30, 60 };

static int do_refresh(struct ui *u)
{
	int ret = rd_portwatch_refresh(u->pw);

	u->last = time(NULL);
	u->refreshes++;
	if (u->opts->count && u->refreshes >= u->opts->count)
		u->quit = true;
	return ret;
}

/* ---- input ---- */

static void set_interval(struct ui *u, int dir)
{
	double v = u->interval;

	if (dir > 0) {
		for (size_t i = 0; i < RD_ARRAY_SIZE(steps); i++)
			if (steps[i] > u->interval + 1e-9) {
				v = steps[i];
				break;
			}
	} else {
		for (size_t i = RD_ARRAY_SIZE(steps); i-- > 0;)
			if (steps[i] < u->interval - 1e-9) {
				v = steps[i];
				break;
			}
	}
	u->interval = v;
	if (!u->paused)
		rd_ticker_arm(&u->t, v);
}

static void move_sel(struct ui *u, int d)
{
	int n;

	/* Keys typed ahead may have changed the order since the last draw. */
	if (rd_topui_build_view(u))
		return;
	n = (int)u->nview;
	if (u->detail) {
		u->dtop += d;
		if (u->dtop < 0)
			u->dtop = 0;
		return;
	}
	u->sel += d;
	if (u->sel >= n)
		u->sel = n - 1;
	if (u->sel < 0)
		u->sel = 0;
	if (n)
		u->sel_id = u->view[u->sel]->id;
}

static void key(struct ui *u, int ch)
{
	int page = LINES > 4 ? LINES - 4 : 1;

	if (u->help) {
		u->help = false;	/* any key closes the help */
		if (ch != 'q')
			return;
	}
	switch (ch) {
	case 'q':
	case 'Q':
		u->quit = true;
		break;
	case KEY_UP:
	case 'k':
		move_sel(u, -1);
		break;
	case KEY_DOWN:
	case 'j':
		move_sel(u, 1);
		break;
	case KEY_PPAGE:
		move_sel(u, -page);
		break;
	case KEY_NPAGE:
		move_sel(u, page);
		break;
	case KEY_HOME:
	case 'g':
		move_sel(u, -1000000);
		break;
	case KEY_END:
	case 'G':
		move_sel(u, 1000000);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case 'd':
		if (u->detail) {
			u->detail = false;
		} else if (u->nview) {
			u->detail = true;
			u->detail_id = u->view[u->sel]->id;
			u->dtop = 0;
		}
		break;
	case 27:
	case KEY_LEFT:
	case KEY_BACKSPACE:
		u->detail = false;
		break;
	case 's':
		u->sort = (u->sort + 1) % RD_TOPUI_NSORT;
		break;
	case 'S':
		u->sort = (u->sort + RD_TOPUI_NSORT - 1) % RD_TOPUI_NSORT;
		break;
	case '+':
	case '=':
		set_interval(u, 1);
		break;
	case '-':
		set_interval(u, -1);
		break;
	case 'p':
	case ' ':
		u->paused = !u->paused;
		rd_ticker_arm(&u->t, u->paused ? 0 : u->interval);
		break;
	case 'a':
		u->absolute = !u->absolute;
		break;
	case 'z':
		u->hide_zero = !u->hide_zero;
		u->dtop = 0;
		break;
	case 'h':
	case '?':
		u->help = true;
		break;
	case 12:	/* ^L */
		clearok(curscr, TRUE);
		break;
	default:
		break;
	}
}

static void resize(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	/* What the terminal shows after a resize is unknown: repaint it all, once. */
	clearok(curscr, TRUE);
}

static void setup_attrs(struct ui *u)
{
	u->a_name = A_BOLD;
	u->a_head = A_BOLD | A_REVERSE;
	u->a_dim = A_DIM;
	/* NO_COLOR / --color=never: marks that need no colour. */
	u->a_bad = A_BOLD | A_REVERSE;
	u->a_warn = A_BOLD;
	u->a_good = A_NORMAL;
	if (u->opts->color && has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_RED, -1);
		init_pair(2, COLOR_YELLOW, -1);
		init_pair(3, COLOR_GREEN, -1);
		u->a_bad = COLOR_PAIR(1) | A_BOLD;
		u->a_warn = COLOR_PAIR(2) | A_BOLD;
		u->a_good = COLOR_PAIR(3);
	}
}

int rd_topui_run(struct rd_portwatch *pw, const struct rd_topui_opts *opts)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH, 0 };
	struct ui u = { .pw = pw, .opts = opts, .interval = opts->interval };
	int ret;

	/*
	 * Ask terminfo first: newterm() on an unknown TERM fails but keeps memory
	 * it allocated; setupterm() with an error pointer fails cleanly.
	 */
	if (setupterm(NULL, STDOUT_FILENO, &ret) != OK)
		return -ENOTTY;
	del_curterm(cur_term);
	ret = rd_ticker_open(&u.t, STDIN_FILENO, sigs);
	if (ret)
		return ret;
	u.scr = newterm(NULL, stdout, stdin);
	if (!u.scr) {
		rd_ticker_close(&u.t);
		return -ENOTTY;
	}
	set_term(u.scr);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	setup_attrs(&u);

	ret = do_refresh(&u);
	if (ret == 0)
		ret = rd_ticker_arm(&u.t, u.interval);
	while (ret == 0 && !u.quit) {
		unsigned int ev;
		int signo;

		rd_topui_draw(&u);
		/* A second at most: the clock in the header moves even when paused. */
		ret = rd_ticker_wait(&u.t, 1000, &ev, &signo);
		if (ret)
			break;
		if (ev & RD_EV_SIGNAL) {
			if (signo == SIGWINCH)
				resize();
			else
				u.quit = true;
		}
		if (ev & RD_EV_INPUT) {
			int ch, keys = 0;

			while ((ch = getch()) != ERR) {
				key(&u, ch);
				keys++;
			}
			/* Readable yet no key, and not a terminal: at its end; stop watching it. */
			if (!keys && !isatty(STDIN_FILENO)) {
				int avail = 0;

				if (ioctl(STDIN_FILENO, FIONREAD, &avail) != 0 || avail == 0)
					rd_ticker_drop_input(&u.t);
			}
		}
		if ((ev & RD_EV_TICK) && !u.paused && !u.quit)
			ret = do_refresh(&u);
	}
	endwin();
	delscreen(u.scr);
	rd_ticker_close(&u.t);
	free(u.view);
	return ret;
}
