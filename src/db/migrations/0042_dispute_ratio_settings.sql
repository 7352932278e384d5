-- The card schemes' ratios per merchant (issue 37 item 6, docs/dispute-ratios.md): the operator's settings
-- and the indexes that serve the ratio queries. The ratios themselves are not stored: each month's figure
-- is recomputed from charges, disputes and fraud warnings, so a late notification corrects it.

-- One row: the platform's thresholds and minimum counts per scheme, ratio and level (each level valid for
-- a range of months, `fromMonth`/`untilMonth` inclusive, null open), and whether a charge with both a
-- fraud warning and a dispute counts once in the Visa-style ratio. The API validates `levels`
-- (disputes/ratios/settings.ts); thresholds are parts per million (15000 = 1.5%), never floats.
CREATE TABLE dispute_ratio_settings (
  id                         smallint PRIMARY KEY CHECK (id = 1),
  count_fraud_and_dispute_once boolean NOT NULL,
  levels                     jsonb NOT NULL CHECK (jsonb_typeof(levels) = 'array'),
  updated_by                 text NOT NULL,
  updated_at                 timestamptz(3) NOT NULL
);

-- The defaults: Visa's VAMP merchant "excessive" level (2.2% until March 2026, 1.5% from April 2026, at
-- least 1,500 fraud reports and disputes in the month), Mastercard's Excessive Chargeback Program (early
-- warning 1% with 100 chargebacks, excessive 1.5% with 100, high excessive 3% with 300), and the
-- gateway's own `watch` levels at 75% of each scheme's first level.
INSERT INTO dispute_ratio_settings (id, count_fraud_and_dispute_once, levels, updated_by, updated_at)
VALUES (1, true, '[
  {"scheme": "visa", "ratio": "visa_style", "level": "watch", "thresholdPpm": 16500, "minimumCount": 1125,
   "fromMonth": null, "untilMonth": "2026-03"},
  {"scheme": "visa", "ratio": "visa_style", "level": "watch", "thresholdPpm": 11250, "minimumCount": 1125,
   "fromMonth": "2026-04", "untilMonth": null},
  {"scheme": "visa", "ratio": "visa_style", "level": "excessive", "thresholdPpm": 22000, "minimumCount": 1500,
   "fromMonth": null, "untilMonth": "2026-03"},
  {"scheme": "visa", "ratio": "visa_style", "level": "excessive", "thresholdPpm": 15000, "minimumCount": 1500,
   "fromMonth": "2026-04", "untilMonth": null},
  {"scheme": "mastercard", "ratio": "mastercard_style", "level": "watch", "thresholdPpm": 7500,
   "minimumCount": 75, "fromMonth": null, "untilMonth": null},
  {"scheme": "mastercard", "ratio": "mastercard_style", "level": "early_warning", "thresholdPpm": 10000,
   "minimumCount": 100, "fromMonth": null, "untilMonth": null},
  {"scheme": "mastercard", "ratio": "mastercard_style", "level": "excessive", "thresholdPpm": 15000,
   "minimumCount": 100, "fromMonth": null, "untilMonth": null},
  {"scheme": "mastercard", "ratio": "mastercard_style", "level": "high_excessive", "thresholdPpm": 30000,
   "minimumCount": 300, "fromMonth": null, "untilMonth": null}
]'::jsonb, 'migration', '2026-12-01T00:00:00Z');

-- Settled card-not-present sales by success time: one merchant's months (its ratio page) and every
-- merchant's month (the hourly evaluation, the operator's watchlist). Index-only with the brand included.
CREATE INDEX charges_card_sales_idx ON charges (organization_id, environment, finalized_at) INCLUDE (card_brand)
  WHERE status = 'succeeded' AND payment_method IN ('credit_card_tr', 'credit_card_international');
CREATE INDEX charges_card_sales_time_idx ON charges (finalized_at) INCLUDE (organization_id, environment, card_brand)
  WHERE status = 'succeeded' AND payment_method IN ('credit_card_tr', 'credit_card_international');

-- Chargebacks by the month they count in: an escalated inquiry when it escalated, any other when the
-- acquirer opened it. Inquiries are not chargebacks.
CREATE INDEX disputes_ratio_idx
  ON disputes (organization_id, environment, (coalesce(escalated_at, provider_created_at))) INCLUDE (charge_id)
  WHERE stage <> 'inquiry';
CREATE INDEX disputes_ratio_time_idx
  ON disputes ((coalesce(escalated_at, provider_created_at))) INCLUDE (organization_id, environment, charge_id)
  WHERE stage <> 'inquiry';
CREATE INDEX fraud_warnings_ratio_idx
  ON fraud_warnings (organization_id, environment, provider_created_at) INCLUDE (charge_id);
CREATE INDEX fraud_warnings_ratio_time_idx
  ON fraud_warnings (provider_created_at) INCLUDE (organization_id, environment, charge_id);
