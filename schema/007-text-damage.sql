-- 007-text-damage.sql: how damaged a copy's text is, to choose the best copy.
--
-- Archives hold the same message several times (a list archive's second
-- copy, a cross-post in two group exports), and old gateways mangled one
-- copy's charset: "J?rgen" where another copy has "Jürgen".  Threading
-- keeps as canonical the copy with the least damage (ties: archive order).
-- text_damage counts U+FFFD in subject, from_name and body, and '?' in
-- subject and from_name.  NULL (rows ingested before version 7) is 0.

ALTER TABLE messages ADD COLUMN text_damage INTEGER;
