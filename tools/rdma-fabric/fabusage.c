// SPDX-License-Identifier: MIT
/* rdma-fabric's usage (fabusage.h). */
#define _GNU_SOURCE
#include <stdio.h>

#include "cli/cli.h"
#include "fabusage.h"

void rd_fabric_usage(const char *prog)
{
	printf("Usage: %s [options]\n"
	       "Sweep the InfiniBand fabric through its management protocol and judge it:\n"
	       "nodes that do not answer, links stuck or degraded, error counters, subnet\n"
	       "managers, duplicate LIDs and GUIDs; each check PASS, WARN, FAIL or SKIP with\n"
	       "both ends of the link and the fix.\n"
	       "\n"
	       "Views (default: the problems and a summary):\n"
	       "      --links           every port of every node: state, width, speed, peer\n"
	       "      --sm              every subnet manager (SMInfo)\n"
	       "      --errors          every port whose error counters are not zero\n"
	       "      --routes          every switch's forwarding table, as ibroute prints it\n"
	       "                        (OpenSM's -R file reads it back); -j: with the ports\n"
	       "      --format FMT      every linked port's counters as metrics: openmetrics\n"
	       "                        or prometheus (names of infiniband-exporter)\n"
	       "      --path SRC DST    the route from SRC to DST hop by hop, as ibtracert, each\n"
	       "                        link judged (SRC, DST: a host, a node description, a\n"
	       "                        GUID or a LID); repeatable\n"
	       "      --path-file FILE  the route of every 'SRC DST' line of FILE\n"
	       "\n"
	       "Options:\n"
	       "  -v, --verbose         show PASS results too\n"
	       "      --list            list the checks and exit\n"
	       "      --only ID,...     run only these checks (an id, or a group: link, sm...)\n"
	       "      --skip ID,...     do not run these checks\n"
	       "      --expect-rate R   every link at least this rate (4xHDR, 4X, EDR)\n"
	       "  -i, --interval SEC    read the counters twice, SEC apart: rising errors FAIL\n"
	       "                        (default 0: one reading)\n"
	       "      --reset           clear every port's counters after reading them\n"
	       "      --timeout SEC     wait for each MAD (default 0.2; 200ms alike)\n"
	       "      --retries N       resend an unanswered MAD N times (default 3)\n"
	       "      --load FILE       judge a saved fabric (ibnetdiscover --cache format)\n"
	       "      --save FILE       save the swept fabric in that format\n"
	       "      --svg FILE        also draw the fabric as an SVG picture: tiers of switches,\n"
	       "                        HCAs counted per leaf, every fault drawn and labelled\n"
	       "      --dot FILE        also write the fabric as a Graphviz graph (every node and\n"
	       "                        link; bad links red)\n"
	       "      --baseline FILE   a saved fabric to compare with: its links down or moved\n"
	       "                        FAIL, nodes gone FAIL, new ones WARN\n"
	       "      --node-name-map FILE  names for GUIDs (default " DEFAULT_NAME_MAP
	       " if present)\n"
	       "      --nhc             Node Health Check output: silent when healthy, else\n"
	       "                        one line 'ERROR: rdma-fabric: CHECK: OBJECT: REASON'\n"
	       "  -d, --device NAME     the local HCA the MADs leave from (default: the first\n"
	       "                        with an InfiniBand port)\n"
	       "  -p, --port N          its port\n"
	       "  -j, --json            JSON output\n"
	       RD_TABLE_USAGE("check,status,detail")
	       "      --color[=WHEN]    colour: auto (default), always, never\n"
	       "  -h, --help            this help\n"
	       "  -V, --version         version\n"
	       "\n"
	       "Exit status: 0 every check PASS, WARN or SKIP; 1 a check FAILed or the sweep\n"
	       "failed; 2 usage error.\n",
	       prog);
}
