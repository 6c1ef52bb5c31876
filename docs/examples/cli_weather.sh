#!/usr/bin/env bash
# The command line on the course notes' weather table: train, inspect, explain, predict.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

printf 'Weather,Play\n' > weather.csv
for day in Sunny,No Overcast,Yes Rainy,Yes Sunny,Yes Sunny,Yes Overcast,Yes Rainy,No \
           Rainy,No Sunny,Yes Rainy,Yes Sunny,No Overcast,Yes Overcast,Yes Rainy,No; do
  echo "$day" >> weather.csv
done

nbayes train weather.csv --target Play -p alpha=0 -o weather.nbm
nbayes inspect weather.nbm
nbayes explain weather.nbm --row 'Weather=Sunny'
printf 'Weather\nSunny\nRainy\n' | nbayes predict weather.nbm - --proba
