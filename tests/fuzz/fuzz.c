/*
 * libFuzzer targets for the parsers that read untrusted text: bisect.conf
 * (and -s assignments), kpatches/series, the guest console under every
 * benchmark, the results store and baselines, kernel configurations.  Built by "make fuzz" with
 * clang; FUZZ_TARGET selects the parser.  make test builds every target and
 * runs each for a few seconds over its seeds (tests/fuzz.t).
 */
#include "check.h"
#include "conf.h"
#include "kcfg.h"
#include "series.h"
#include "store.h"
#include "util.h"
#include "vm.h"
#include "workload.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	util_quiet = 1;
#if FUZZ_TARGET == 1
	{
		struct conf c;

		conf_init(&c);
		if (conf_parse(&c, "fuzz.conf", text, size) == 0)
			conf_finish(&c);
		conf_release(&c);
		conf_init(&c);
		conf_set(&c, "-s", text);
		conf_release(&c);
	}
#elif FUZZ_TARGET == 2
	{
		struct series s;

		series_init(&s);
		series_parse(&s, "series", text);
		series_release(&s);
		free(series_subject(text));
	}
#elif FUZZ_TARGET == 3
	{
		static const char *const benches[] = { "hackbench", "iperf3", "cyclictest" };
		struct vm_result r;
		size_t i;

		vm_parse_console(text, 0, NULL, &r);
		vm_parse_console(text, 1, NULL, &r);
		for (i = 0; i < sizeof(benches) / sizeof(benches[0]); i++) {
			struct workload w;
			struct conf c;

			conf_init(&c);
			free(c.bench);
			c.bench = xstrdup(benches[i]);
			if (workload_init(&w, &c) == 0) {
				vm_parse_console(text, 0, &w, &r);
				workload_release(&w);
			}
			conf_release(&c);
		}
	}
#elif FUZZ_TARGET == 4
	{
		struct store s;
		struct check_baseline b;

		store_init(&s, "fuzz");
		store_parse(&s, (const char *)data, size);
		store_release(&s);
		if (check_baseline_parse(&b, "fuzz", text) == 0)
			check_baseline_release(&b);
	}
#elif FUZZ_TARGET == 5
	{
		struct kcfg k, again;
		const char **names;
		char *out;

		/* What parses formats into text that parses to the same. */
		if (kcfg_parse(&k, "fuzz", (const char *)data, size) == 0) {
			out = kcfg_format(&k);
			if (kcfg_parse(&again, "again", out, strlen(out)) < 0 ||
			    kcfg_diff(&k, &again, &names) != 0)
				abort();
			kcfg_release(&again);
			free(out);
			kcfg_release(&k);
		}
	}
#endif
	free(text);
	return 0;
}
