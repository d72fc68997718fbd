#!/bin/bash
# measure.sh -- print the table of docs/diskmodel.md.
#
#   tools/diskmodel/measure.sh [CONFIG ...]
# CONFIG is "preset[,param=value...]"; default: scsi10k ide7200
# ide7200,wcache=on ideal.  For each: sequential writes from offset 0
# with qemu-img bench (64 KiB and 128 KiB, queue depth 1 2 4 8 16) and
# random 4 KiB reads with qemu-io over the whole modelled disk (QD1, and
# QD16 as aio batches of 16).  Takes about two minutes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/diskmodel-measure.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
[ $# -gt 0 ] || set -- scsi10k ide7200 ide7200,wcache=on ideal

bench() {   # bench ARGS: MB/s of one qemu-img bench run
    local out
    out=$(qemu-img bench -f raw "$@" "nbd+unix:///?socket=$work/sock")
    awk '/^Sending/ { n = $2; sz = $5 } /^Run completed/ { t = $4 }
         END { printf "%.1f", n * sz / t / 1e6 }' <<<"$out"
}

randio() {  # randio N BATCH SPAN: IOPS of random 4 KiB reads
    local n=$1 batch=$2 span=$3 args=() line t0 t1
    while IFS= read -r line; do args+=(-c "$line"); done < <(
        python3 -c '
import random, sys
n, batch, span = map(int, sys.argv[1:])
r = random.Random(7)
for i in range(n):
    off = r.randrange(span // 4096) * 4096
    print(("read -q %d 4k" if batch == 1 else "aio_read -q %d 4k") % off)
    if batch > 1 and i % batch == batch - 1:
        print("aio_flush")' "$n" "$batch" "$span")
    t0=$(date +%s.%N)
    qemu-io -f raw "${args[@]}" "nbd+unix:///?socket=$work/sock" >/dev/null
    t1=$(date +%s.%N)
    awk -v n="$n" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }'
}

echo "| config | size | QD1 | QD2 | QD4 | QD8 | QD16 | rand 4K QD1 | rand 4K QD16 |"
echo "|---|---|---|---|---|---|---|---|---|"
for cfg in "$@"; do
    preset=${cfg%%,*}
    params=()
    [ "$cfg" != "$preset" ] && IFS=, read -ra params <<<"${cfg#*,}"
    case $preset in
    scsi10k) span=34G ;;        # modelled capacity 34.7 GB
    ide7200) span=76G ;;        # modelled capacity 76.7 GB
    *) span=4G ;;
    esac
    rm -f "$work/img" "$work/ready"
    truncate -s "$span" "$work/img"
    "$here/serve" --ready "$work/ready" "$preset" "$work/img" "$work/sock" \
        "${params[@]}" 2>"$work/log" &
    pid=$!
    while [ ! -s "$work/ready" ]; do sleep 0.05; done
    bytes=$(stat -c %s "$work/img")
    r1=$(randio 300 1 "$bytes")
    r16=$(randio 480 16 "$bytes")
    for sz in 64 128; do
        row="| $cfg | ${sz}K"
        for qd in 1 2 4 8 16; do
            n=$(( (qd == 1 ? 16 : 32) * 1024 / sz ))    # 16-32 MiB per run
            row="$row | $(bench -w -s ${sz}k -d $qd -c $n)"
        done
        if [ $sz = 64 ]; then row="$row | $r1 | $r16 |"; else row="$row | | |"; fi
        echo "$row"
    done
    kill $pid; wait $pid || true; pid=
done
