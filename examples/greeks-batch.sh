#!/bin/sh
# greeks-batch.sh - Black-Scholes delta and vega for a whole book of options
# in one run: batch mode (--points) records the pricing program on a tape
# once and replays it for every row of a CSV file, one option per row.
#
#   price = cp*(S*N(cp*d1) - K*exp(-r*T)*N(cp*d2)),  N(z) = erfc(-z/sqrt(2))/2
#   d1 = (log(S/K) + (r + v^2/2)*T)/(v*sqrt(T)),      d2 = d1 - v*sqrt(T)
#
# S spot, K strike, T years to expiry, v volatility, cp = 1 for a call and
# -1 for a put: the columns of book.csv, named by its header line.  The rate
# r is the same for every option: not a column but a fixed parameter, given
# with -at.  --wrt S,v picks delta = d/dS and vega = d/dv; --wrt may also
# name r, an -at parameter (rho).
#
# Checked against: the closed forms, in python3 (math.erfc) at r = 0.05:
#   delta = cp*N(cp*d1), vega = S*phi(d1)*sqrt(T), rho = cp*K*T*exp(-r*T)*N(cp*d2)
#     S   K    T    v    cp  price               delta                vega
#   100 100    1    0.2   1  10.450583572185565   0.6368306511756191  37.52403469169379
#   100 100    1    0.2  -1   5.573526022256971  -0.3631693488243809  37.52403469169379
#   100 110    0.5  0.25  1   4.22578239296007    0.37852913650867154 26.89150830183445
#   100  90    0.25 0.3  -1   1.74019900094315   -0.19469151804477625 13.772179480993332
#   120 100    2    0.15  1  30.454665087521406   0.9246328478397733  24.112365093620344
#    80 100    0.75 0.35 -1  20.68982878508409   -0.6775685680032859  24.85422728500266
#   rho: 53.232481545376345, -41.89046090469506, 16.81356562895354,
#   -5.302337701355194, 161.0025533065028, -56.171485669010224.
# adcalc agrees to 1e-14 relative; printed to 10 significant digits so the
# output does not depend on the last bit of the C library's erfc/exp/log.
# The large book is checked by put-call parity, a closed form that needs no
# erf (awk): C - P = S - K*exp(-r*T), delta_C - delta_P = 1, vega_C = vega_P.
adcalc=${ADCALC:-adcalc}
LC_ALL=C; export LC_ALL    # awk reads and prints numbers with a "."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/greeks.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# the pricing program: a user function and named intermediate results
cat >"$tmp/bs.ad" <<'EOF'
N(z) = 0.5*erfc(-z/sqrt(2))    # the standard normal distribution function
sd = v*sqrt(T)
d1 = (log(S/K) + (r + v^2/2)*T)/sd
d2 = d1 - sd
cp*(S*N(cp*d1) - K*exp(-r*T)*N(cp*d2))
EOF

cat >"$tmp/book.csv" <<'EOF'
S,K,T,v,cp
100,100,1,0.2,1
100,100,1,0.2,-1
100,110,0.5,0.25,1
100,90,0.25,0.3,-1
120,100,2,0.15,1
80,100,0.75,0.35,-1
EOF

echo "# the book, and price, delta and vega of each option (one output row per input row)"
"$adcalc" -f "$tmp/bs.ad" -at r=0.05 --points "$tmp/book.csv" --wrt S,v --precision 10 |
    paste -d, "$tmp/book.csv" -

echo "# rho: the fixed parameter r can be differentiated too"
"$adcalc" -f "$tmp/bs.ad" -at r=0.05 --points "$tmp/book.csv" --wrt r --precision 10

echo "# a large book: 30000 call/put pairs, on 1 thread and on all cores"
awk 'BEGIN {
    print "S,K,T,v,cp"
    for (i = 0; i < 30000; i++) {
        S = 50 + (i % 101); K = 60 + 10 * (i % 9); T = 0.1 + (i % 37) / 10; v = 0.1 + (i % 13) / 20
        print S "," K "," T "," v ",1"
        print S "," K "," T "," v ",-1"
    }
}' >"$tmp/big.csv"
"$adcalc" -f "$tmp/bs.ad" -at r=0.05 --points "$tmp/big.csv" --wrt S,v --precision 17 -j 1 >"$tmp/g1.csv"
"$adcalc" -f "$tmp/bs.ad" -at r=0.05 --points "$tmp/big.csv" --wrt S,v --precision 17 -j 0 >"$tmp/g0.csv"
echo "rows: $(($(wc -l <"$tmp/g1.csv") - 1))"
if cmp -s "$tmp/g1.csv" "$tmp/g0.csv"; then echo "-j 1 and -j 0: identical output"; else echo "-j 1 and -j 0 differ"; fi

echo "# put-call parity on every pair: largest deviations"
paste -d, "$tmp/big.csv" "$tmp/g1.csv" | awk -F, -v r=0.05 '
    function abs(a) { return a < 0 ? -a : a }
    NR == 1 { next }
    $5 == 1 { S = $1; K = $2; T = $3; C = $6; dC = $7; vC = $8; next }
    {
        e = abs((C - $6) - (S - K * exp(-r * T))) / S; if (e > ep) ep = e
        e = abs(dC - $7 - 1); if (e > ed) ed = e
        e = abs(vC - $8) / (vC > 1 ? vC : 1); if (e > ev) ev = e
        n++
    }
    END {
        printf "%d pairs\n", n
        printf "price: %s\n", ep < 1e-12 ? "below 1e-12 (relative to S)" : "TOO LARGE: " ep
        printf "delta: %s\n", ed < 1e-12 ? "below 1e-12" : "TOO LARGE: " ed
        printf "vega:  %s\n", ev < 1e-12 ? "below 1e-12 (relative)" : "TOO LARGE: " ev
    }'

echo "# an expired option (T = 0) has no d1: with --on-error nan its row is nan,"
echo "# the error names its line, and the exit status is that of the error"
printf 'S,K,T,v,cp\n100,100,1,0.2,1\n100,100,0,0.2,1\n100,100,1,0.2,-1\n' >"$tmp/expired.csv"
"$adcalc" -f "$tmp/bs.ad" -at r=0.05 --points "$tmp/expired.csv" --wrt S,v --precision 10 \
    --on-error nan 2>"$tmp/err"
echo "exit status: $?"
sed "s|$tmp/||g" "$tmp/err"
