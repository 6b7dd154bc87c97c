#!/bin/sh
# tax-schedule.sh - a piecewise function: a progressive income tax written
# with if / else if / else, its value and its derivative (the marginal
# rate) for a file of incomes in one batch run, and what happens exactly at
# a bracket's edge, where the schedule has a kink.
#
#   income up to 10000: no tax; 10000..40000: 10% of what is above 10000;
#   40000..100000: 3000 + 25% above 40000; above: 18000 + 40% above 100000
#
# Only the branch an income takes is recorded, so each row's derivative is
# that bracket's rate; the rows take four paths (adcalc keeps a tape of
# each and replays it for the rows that follow it).  At an edge the two
# sides of the comparison are equal: under the default --nondiff strict
# that is an error (the function has a kink there), under zero-subgrad the
# branch the values choose gives the derivative.
#
# Checked against: the schedule by hand.  5000 -> 0 (rate 0); 25000 -> 1500
# (0.1); 40000.5 -> 3000.125 (0.25); 70000 -> 10500 (0.25); 250000 -> 78000
# (0.4).  At 40000: 3000 either side; the values choose the "<= 40000"
# branch (income > 40000 is false), rate 0.1.
adcalc=${ADCALC:-adcalc}
cat >schedule.ad <<'PROG'
# a progressive schedule: the tax on an income
if income > 100000 {
  tax = 18000 + 0.40*(income - 100000)
} else if income > 40000 {
  tax = 3000 + 0.25*(income - 40000)
} else if income > 10000 {
  tax = 0.10*(income - 10000)
} else {
  tax = 0
}
tax
PROG
printf 'income\n5000\n25000\n40000.5\n70000\n250000\n' >incomes.txt
echo "# tax and marginal rate for five incomes (one batch run, four paths)"
"$adcalc" -f schedule.ad --points incomes.txt --grad --stats 2>&1 | grep -v '^adcalc: tape:' | grep -v '^adcalc: [0-9]* rows'
echo "# exactly at the edge of a bracket: a kink, so strict refuses a derivative"
"$adcalc" -f schedule.ad -at income=40000 --grad 2>&1
echo "exit status $?"
echo "# ... zero-subgrad takes the branch the values choose"
"$adcalc" -f schedule.ad -at income=40000 --grad --nondiff zero-subgrad
echo "# the value alone never fails"
"$adcalc" -f schedule.ad -at income=40000
