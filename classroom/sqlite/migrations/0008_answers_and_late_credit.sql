-- How a letter in a choice answer names its option.
--
-- answer_format: 'shown-letters' for an attempt recorded since options
-- are lettered after shuffling (a letter is the one the learner's variant
-- showed, or the answer names a stable id "option-b"); 'key-letters' for
-- one recorded before, when a letter was the option's own key on every
-- variant. The store writes 'shown-letters' on every new attempt; the rows
-- already kept take the default, so a regrade reads their letters as
-- keys (classroom.AnswerKeyLetters, lessons' LegacyChoiceAnswer).
ALTER TABLE attempts ADD COLUMN answer_format TEXT NOT NULL DEFAULT 'key-letters';

-- late_credit: the teacher granted this learner credit for their late
-- work on the exercise (an extension): their attempts after the deadline,
-- still marked late, are scored as if on time.
ALTER TABLE progress ADD COLUMN late_credit INTEGER NOT NULL DEFAULT 0;
