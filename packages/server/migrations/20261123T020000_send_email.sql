-- Send Email: why a send waits (the SMTP daily cap), each capped account's count of the
-- day, and the starting templates every user sees.

alter table sends add column note text;
-- A send held back by its account's daily cap is not resumed before this time.
alter table sends add column waiting_until timestamptz;

-- What a capped (SMTP or Gmail) account sent on a day of its user's time zone. Dispatch
-- reserves recipients here before it claims them, under the row's lock, so two sends
-- from one account never pass the cap together; unsent reservations are given back.
create table account_daily_counts (
  account_id bigint not null references sending_accounts (id) on delete cascade,
  day date not null,
  sent integer not null default 0 check (sent >= 0),
  primary key (account_id, day)
);

insert into templates (user_id, name, subject, html) values
(null, 'Simple announcement', 'News from us', $tpl$<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Announcement</title></head>
<body style="margin:0;padding:0;background:#f4f6fb;font-family:Helvetica,Arial,sans-serif;color:#1f2933">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f6fb"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px;background:#ffffff;border-radius:12px">
<tr><td style="padding:32px 32px 8px;font-size:24px;font-weight:bold">Hello {{name::there}},</td></tr>
<tr><td style="padding:8px 32px;font-size:16px;line-height:1.6">We have something new to share with you. Write your announcement here: what changed, why it matters to your readers, and what they can do next.</td></tr>
<tr><td style="padding:16px 32px 32px"><a href="https://example.com" style="display:inline-block;background:#4263eb;color:#ffffff;text-decoration:none;padding:12px 24px;border-radius:8px;font-weight:bold">Read more</a></td></tr>
</table></td></tr></table></body></html>$tpl$),
(null, 'Newsletter', 'This month''s newsletter', $tpl$<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Newsletter</title>
<style>@media (max-width:620px){.column{display:block!important;width:100%!important}}</style></head>
<body style="margin:0;padding:0;background:#eef2f7;font-family:Georgia,'Times New Roman',serif;color:#1f2933">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#eef2f7"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:640px;background:#ffffff;border-radius:10px;overflow:hidden">
<tr><td style="background:#243b53;color:#ffffff;padding:28px 32px;font-size:26px">The Monthly Letter</td></tr>
<tr><td style="padding:28px 32px 8px;font-size:17px;line-height:1.6">Dear {{name::reader}}, here is what happened this month.</td></tr>
<tr><td style="padding:8px 20px"><table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr>
<td class="column" width="50%" valign="top" style="padding:12px"><h2 style="font-size:19px;margin:0 0 8px">First story</h2><p style="font-size:15px;line-height:1.6;margin:0 0 8px">A short summary of your first story.</p><a href="https://example.com/first" style="color:#4263eb">Continue reading</a></td>
<td class="column" width="50%" valign="top" style="padding:12px"><h2 style="font-size:19px;margin:0 0 8px">Second story</h2><p style="font-size:15px;line-height:1.6;margin:0 0 8px">A short summary of your second story.</p><a href="https://example.com/second" style="color:#4263eb">Continue reading</a></td>
</tr></table></td></tr>
<tr><td style="padding:16px 32px 32px;font-size:15px;line-height:1.6;color:#52606d">Thank you for reading. Reply to this email to tell us what you would like to see next.</td></tr>
</table></td></tr></table></body></html>$tpl$),
(null, 'Product promotion', 'An offer for you, {{name::friend}}', $tpl$<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Offer</title></head>
<body style="margin:0;padding:0;background:#fff8f0;font-family:Helvetica,Arial,sans-serif;color:#1f2933">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#fff8f0"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px;background:#ffffff;border-radius:14px;border:1px solid #ffe0c2">
<tr><td align="center" style="padding:36px 32px 8px;font-size:14px;letter-spacing:2px;color:#d9480f;text-transform:uppercase">This week only</td></tr>
<tr><td align="center" style="padding:0 32px;font-size:34px;font-weight:bold">20% off everything</td></tr>
<tr><td align="center" style="padding:16px 32px;font-size:16px;line-height:1.6">{{name::Hello}}, use the code below at checkout. It is yours until Sunday.</td></tr>
<tr><td align="center" style="padding:8px 32px"><span style="display:inline-block;border:2px dashed #d9480f;padding:10px 22px;font-size:20px;font-weight:bold;letter-spacing:3px">SAVE20</span></td></tr>
<tr><td align="center" style="padding:24px 32px 36px"><a href="https://example.com/shop" style="display:inline-block;background:#d9480f;color:#ffffff;text-decoration:none;padding:14px 30px;border-radius:30px;font-weight:bold">Shop now</a></td></tr>
</table></td></tr></table></body></html>$tpl$);
