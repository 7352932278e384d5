-- The gateway's one BIN table (issue 38 item 1, docs/risk.md "The BIN table"): what the first 6 to 8
-- digits of a card number say of the card, for the risk engine, acquirer routing and instalments. The
-- operator maintains it from a CSV file (operator API and console); a lookup takes the longest prefix
-- that the number begins with. Read by every organization: a platform reference table.
CREATE TABLE card_bins (
  -- "C": byte order, so that a prefix search (`LIKE '4000%'`) and the list's order use the primary key.
  prefix      text COLLATE "C" PRIMARY KEY CHECK (prefix ~ '^[0-9]{6,8}$'),
  scheme      text NOT NULL CHECK (scheme IN ('visa', 'mastercard', 'amex', 'troy', 'discover', 'diners',
                'jcb', 'unionpay', 'maestro', 'mir', 'elo', 'hiper', 'hipercard', 'naranja', 'verve')),
  -- ISO 3166-1 alpha-2 (the application checks the code is assigned).
  country     text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  issuer      text CHECK (char_length(issuer) BETWEEN 1 AND 120),
  funding     text NOT NULL CHECK (funding IN ('credit', 'debit', 'prepaid')),
  category    text NOT NULL CHECK (category IN ('consumer', 'commercial')),
  -- The issuer's card programme (Bonus, World, Maximum, Axess, CardFinans, Paraf, Bankkart, …).
  programme   text CHECK (char_length(programme) BETWEEN 1 AND 60),
  updated_at  timestamptz(3) NOT NULL,
  -- `staff:stf_…`, `cli`, or `migration` for the rows below.
  updated_by  text NOT NULL
);

-- The operator's list filtered by country or scheme, in prefix order.
CREATE INDEX card_bins_country_idx ON card_bins (country, prefix);
CREATE INDEX card_bins_scheme_idx ON card_bins (scheme, prefix);

-- A row for every sandbox test card (sandbox-acquirer/cards.ts, docs/sandbox-acquirer.md) and the
-- instalment cards of issue 40. Test cards that share their first 6 digits get rows of 8, so each
-- number finds the row meant for it; `400000` and `4000012` cover the other numbers of those ranges
-- (4000 012…: the sandbox's card-testing declines). A real BIN file loaded later replaces any row it
-- names. The US rows are the sandbox's own issuer; the Turkish ones name the programme's bank.
INSERT INTO card_bins (prefix, scheme, country, issuer, funding, category, programme, updated_at, updated_by)
VALUES
  ('424242',   'visa',       'US', 'Sandbox Bank',          'credit',  'consumer',   NULL,         '2026-12-02T00:00:00Z', 'migration'),
  ('400000',   'visa',       'US', 'Sandbox Bank',          'debit',   'consumer',   NULL,         '2026-12-02T00:00:00Z', 'migration'),
  ('4000012',  'visa',       'US', 'Sandbox Bank',          'prepaid', 'consumer',   NULL,         '2026-12-02T00:00:00Z', 'migration'),
  ('40000000', 'visa',       'US', 'Sandbox Bank',          'credit',  'consumer',   NULL,         '2026-12-02T00:00:00Z', 'migration'),
  ('40000084', 'visa',       'US', 'Sandbox Bank',          'credit',  'consumer',   NULL,         '2026-12-02T00:00:00Z', 'migration'),
  ('40005790', 'visa',       'TR', 'QNB',                   'debit',   'consumer',   NULL,         '2026-12-02T00:00:00Z', 'migration'),
  ('555555',   'mastercard', 'TR', 'Yapı Kredi',            'credit',  'consumer',   'World',      '2026-12-02T00:00:00Z', 'migration'),
  ('520000',   'mastercard', 'TR', 'Akbank',                'credit',  'consumer',   'Axess',      '2026-12-02T00:00:00Z', 'migration'),
  ('54006100', 'mastercard', 'TR', 'Garanti BBVA',          'credit',  'consumer',   'Bonus',      '2026-12-02T00:00:00Z', 'migration'),
  ('54006200', 'mastercard', 'TR', 'Türkiye İş Bankası',    'credit',  'commercial', 'Maximum',    '2026-12-02T00:00:00Z', 'migration'),
  ('97920303', 'troy',       'TR', 'Ziraat Bankası',        'credit',  'consumer',   'Bankkart',   '2026-12-02T00:00:00Z', 'migration'),
  ('97920300', 'troy',       'TR', 'Türkiye Halk Bankası',  'credit',  'consumer',   'Paraf',      '2026-12-02T00:00:00Z', 'migration'),
  ('97920301', 'troy',       'TR', 'Denizbank',             'credit',  'consumer',   'Troy',       '2026-12-02T00:00:00Z', 'migration');
