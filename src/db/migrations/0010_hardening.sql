-- The public application limit counts accepted applications per client address (issue 11 item 18):
-- this index serves "how many from this address since <window start>".

CREATE INDEX applications_submitted_ip_created_idx ON applications (submitted_ip, created_at);
