package lti

import (
	"context"
	"errors"
	"time"

	"github.com/leaselab/playground/classroom"
)

// Wake has the queue look for work now (Run): a reveal the store queued
// with a class's settings, which the tool did not see queued.
func (t *Tool) Wake() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// QueueReveals passes on to the courses' gradebooks the reveals the store
// holds (classroom.LTIStore.ClaimLTIReveal): for each, the standing on
// the exercise of every learner of the class who came by a launch (or of
// the one learner it names) is queued (EnqueueStanding), which for one
// who had not solved it is the 0 every export shows. A reveal whose
// queuing fails for some learner is still queued for the others, and
// tried again, whole, with the scores' backoff (Backoff, by the tool's
// clock); after maxTries it is given up, as a score is: logged at warning
// level and kept in the store, failed, until the teacher acts on the
// class again (FailLTIReveal). The queue sends only what changed. It
// returns how many reveals were passed on.
func (t *Tool) QueueReveals(ctx context.Context) (int, error) {
	done := 0
	for ctx.Err() == nil {
		job, err := t.store.ClaimLTIReveal(ctx, t.now(), ClaimLease)
		if err != nil || job == nil {
			return done, err
		}
		err = t.queueReveal(ctx, job)
		if errors.Is(err, errClaimLost) {
			// Another replica has it now: it is theirs to finish.
			t.log.Warn("lti: a reveal's claim ran out while its scores were queued; left to the replica that took it", "class", job.ClassID, "exercise", job.Exercise)
			continue
		}
		if err != nil {
			retryAt := t.now().Add(Backoff(job.Tries))
			if job.Tries >= maxTries {
				t.log.Warn("lti: gave up queuing a reveal's scores", "class", job.ClassID, "exercise", job.Exercise, "tries", job.Tries, "err", err)
				retryAt = time.Time{}
			} else {
				t.log.Warn("lti: could not queue a reveal's scores; tried again later", "class", job.ClassID, "exercise", job.Exercise, "tries", job.Tries, "err", err)
			}
			if err := t.store.FailLTIReveal(ctx, job, err.Error(), retryAt); err != nil {
				return done, err
			}
			continue
		}
		if err := t.store.FinishLTIReveal(ctx, job); err != nil {
			return done, err
		}
		done++
	}
	return done, ctx.Err()
}

// errClaimLost is a reveal's claim that ran out, and could not be renewed,
// while its learners' standings were queued.
var errClaimLost = errors.New("the claim on the reveal ran out")

// queueReveal queues the standing on a revealed exercise of the learners
// a reveal is for, and returns the first failure. The claim is renewed
// as the work goes, whenever half of it is spent (by the tool's clock),
// so that a course too large to queue within one claim is never taken by
// another replica meanwhile; if the claim is found lost all the same,
// the work stops (errClaimLost).
func (t *Tool) queueReveal(ctx context.Context, job *classroom.LTIRevealJob) error {
	learners := []int64{job.LearnerID}
	if job.LearnerID == 0 {
		lc, err := t.store.LTIContext(ctx, job.ClassID)
		if classroom.ErrorCode(err) == classroom.ENOTFOUND {
			return nil // the class is no course's now
		} else if err != nil {
			return err
		}
		learners = learners[:0]
		for _, id := range lc.Subs {
			learners = append(learners, id)
		}
	}
	var first error
	for _, id := range learners {
		if !t.now().Add(ClaimLease / 2).Before(job.ClaimedUntil) {
			ok, err := t.store.RenewLTIReveal(ctx, job, t.now(), ClaimLease)
			if err != nil {
				return err
			}
			if !ok {
				return errClaimLost
			}
		}
		if err := t.EnqueueStanding(ctx, job.ClassID, id, job.Exercise); err != nil && first == nil {
			first = err
		}
	}
	return first
}
