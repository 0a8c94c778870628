-- Replaced by delivery_events (opened and clicked, source 'tracking').
drop table send_events;
