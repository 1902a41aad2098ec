#!/bin/bash
# Config bisection cost: the builds and minutes a config range takes to
# name its culprit option, with the shipped example pair (about 25 options
# apart) and with a pair 100 or more options apart (the example plus whole
# subsystems that stay off tbench's path).  Both at state 6 of the series,
# whose own kernel is the good end; CFS bandwidth control is the culprit.
# BENCH_WORKDIR (default /tmp/tbisect-bench-config) is emptied first; the
# first build is a full one (several minutes on 2 cores), not counted here.
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD BIN=$TOP/tbisect
W=${BENCH_WORKDIR:-/tmp/tbisect-bench-config}
rm -rf "$W"; mkdir -p "$W"
export TBISECT_WORKDIR=$W
good=$TOP/kconfig/examples/cfs-bandwidth-good.config
bad=$TOP/kconfig/examples/cfs-bandwidth-bad.config
big=$W/bad-100.config
{
	cat "$bad"
	# Whole subsystems tbench does not use: each brings its own options.
	printf '%s\n' CONFIG_BLOCK=y CONFIG_BLK_DEV_RAM=y CONFIG_EXT2_FS=y CONFIG_MSDOS_FS=y \
		CONFIG_VFAT_FS=y CONFIG_ISO9660_FS=y CONFIG_INPUT=y CONFIG_INPUT_KEYBOARD=y \
		CONFIG_INPUT_MOUSE=y CONFIG_RTC_CLASS=y CONFIG_HWMON=y CONFIG_THERMAL=y \
		CONFIG_WATCHDOG=y CONFIG_CRYPTO=y CONFIG_CRYPTO_SHA256=y CONFIG_CRYPTO_AES=y \
		CONFIG_NLS=y CONFIG_NLS_UTF8=y CONFIG_POSIX_MQUEUE=y CONFIG_QUOTA=y \
		CONFIG_EXT4_FS=y CONFIG_BLK_DEV_LOOP=y CONFIG_KEYS=y CONFIG_CRYPTO_SHA1=y \
		CONFIG_INPUT_EVDEV=y CONFIG_SERIAL_8250_EXTENDED=y CONFIG_CPU_FREQ=y CONFIG_HID=y \
		CONFIG_HID_GENERIC=y CONFIG_I2C=y CONFIG_NEW_LEDS=y CONFIG_LEDS_CLASS=y CONFIG_GPIOLIB=y
} >"$big"
now() { date +%s.%N; }
el() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", (b-a)/60}'; }

"$BIN" -q prepare || exit 2
echo "# state 6 built and measured first (the good end's kernel): not counted"
"$BIN" -q measure 6 >/dev/null 2>&1 || exit 2

printf '%-28s %8s %6s %7s %7s %8s %9s\n' pair options steps builds limit minutes culprit
for pair in "example:$bad" "100+:$big"; do
	name=${pair%%:*} b=${pair#*:}
	t0=$(now)
	"$BIN" -s GOOD_CONFIG="$good" -s BAD_CONFIG="$b" -s AT=6 -s PROFILE=0 bisect \
		>"$W/$name.out" 2>"$W/$name.err"
	t1=$(now)
	n=$(sed -n 's/.*config: \([0-9]*\) options differ.*/\1/p' "$W/$name.err" | head -1)
	steps=$(sed -n 's/.*options in \([0-9]*\) steps.*/\1/p' "$W/$name.err" | head -1)
	builds=$(sed -n 's/^cost: \([0-9]*\) kernel builds.*/\1/p' "$W/$name.out" | tail -1)
	limit=$(awk -v n="${n:-0}" 'BEGIN { l = 0; while (2 ^ l < n) l++; print l + 3 }')
	culprit=$(sed -n 's/^first bad state: [0-9]* (\(.*\))$/\1/p' "$W/$name.out")
	printf '%-28s %8s %6s %7s %7s %8s %9s\n' "$name" "${n:-?}" "${steps:-?}" "${builds:-?}" \
		"$limit" "$(el "$t0" "$t1")" "${culprit:-none}"
	grep '^cost:\|^phases:' "$W/$name.out" | sed 's/^/  /'
done
