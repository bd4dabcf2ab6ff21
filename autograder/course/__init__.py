"""The course around grading: a class in, a gradebook out.

    exports, unpack     a class export or LMS download read (who submitted what), zips unpacked safely
    batch, pool         a class graded (resumable journal; -j grader processes); merge: shards joined
    journal             what was graded, and with what fingerprint
    handscores, lateness, similarity    hand-graded scores, late policy, similar submissions
    outputs, gradebook, feedback, report, atomic    every file a person reads, written whole
    gradescope          the Gradescope zip and its runner; assign: student templates; authoring: the
                        author's check of an assignment

Uses the grading part (`grading.Grader`) and the sandbox only through it; nothing below imports it."""
