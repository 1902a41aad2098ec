/*
 * libFuzzer targets for the parsers that read untrusted text: bisect.conf,
 * kpatches/series, the guest console, the results store and baselines.
 * Built by "make fuzz" with clang; FUZZ_TARGET selects the parser.
 */
#include "check.h"
#include "conf.h"
#include "series.h"
#include "store.h"
#include "util.h"
#include "vm.h"

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
		conf_parse(&c, "fuzz.conf", text, size);
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
		struct vm_result r;

		vm_parse_console(text, 0, &r);
		vm_parse_console(text, 1, &r);
	}
#elif FUZZ_TARGET == 4
	{
		struct store s;
		struct check_baseline b;

		store_init(&s, "fuzz");
		store_parse(&s, text, size);
		store_release(&s);
		if (check_baseline_parse(&b, "fuzz", text) == 0)
			check_baseline_release(&b);
	}
#endif
	free(text);
	return 0;
}
