-- Issue 14 item 8 (docs/decisions/0050-live-rate-source.md): which source live payouts and settlement
-- batches convert at, as an operator chose it. `ticker` (also without a row): the live ticker
-- (`FX_TICKER_URL`), with the operators' entered rate as its fallback while fresh; without a ticker
-- configured, the operators' rate alone. `operator`: the operators' entered rate alone, the ticker not
-- asked (a ticker that answers, fresh, with a wrong rate). The sandbox converts at the sandbox chain's feed.
CREATE TABLE fx_rate_sources (
  environment  text PRIMARY KEY CHECK (environment = 'live'),
  source       text NOT NULL CHECK (source IN ('ticker', 'operator')),
  reason       text NOT NULL,
  updated_by   text NOT NULL,
  updated_at   timestamptz(3) NOT NULL
);
