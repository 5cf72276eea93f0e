/* Course platforms: which bulk download a submissions folder is (Canvas, Moodle, GitHub
 * Classroom, or plain student folders and archives), and who each submission belongs to. The
 * batch plan (batch_plan.c) turns each student found here into one plan entry; the platform
 * writers (gradebook_lms.c) use the identity kept with it. Layout rules: CLASS_GUIDE.md,
 * "Collecting from a course platform". */
#ifndef CML_PLATFORM_H
#define CML_PLATFORM_H

#include <stddef.h>

typedef enum {
    CML_PF_AUTO,     /* detect from the names in the download */
    CML_PF_FOLDERS,  /* one folder or archive per student, named by the student */
    CML_PF_CANVAS,   /* "Download Submissions": name[_LATE]_userid_submissionid_file */
    CML_PF_MOODLE,   /* "Download all submissions": Full Name_participantid_assignsubmission_file */
    CML_PF_GITHUB    /* GitHub Classroom: one clone per student, assignment-username */
} cml_platform;

/* "auto", "folders", "canvas", "moodle", "github" to the enum; -1 for any other name. */
int cml_platform_parse(const char *name);
const char *cml_platform_name(cml_platform pf);

/* Who a submission is, as the platform said it. */
typedef struct {
    char platform[12];   /* "folders", "canvas", "moodle", "github" */
    char id[64];         /* Canvas user id, Moodle participant id, GitHub username; "" for folders */
    char display[256];   /* the student's name as the platform wrote it (UTF-8, e.g. "Émile Zoë") */
    int late;            /* the platform marked the submission late (Canvas's LATE) */
} cml_identity;

/* One name in the download folder that belongs to a student. */
typedef struct {
    char file[512];      /* its path under the download folder ("x_1_2_a.cu", "F_3_.../w.zip") */
    char original[256];  /* the name the student gave it (Canvas's "-N" re-upload suffix undone) */
    int is_dir, archive; /* a folder; a .zip/.tar/.tar.gz/.tgz/.tar.xz/.tar.bz2 file */
    int rank;            /* N of Canvas's "-N" suffix, 0 without: the highest N is the newest */
    int student;         /* index into cml_download.students */
} cml_item;

/* One student's submission as found in the download. */
typedef struct {
    cml_identity who;
    char base[128];      /* the plan entry's name before it is made safe and unique */
    int gather;          /* 1: items are loose files to gather into a folder of the student's
                            own; 0: the one item is the submission (a folder or an archive) */
    int first, count;    /* its items: items[first .. first + count) */
} cml_student_src;

typedef struct {
    char dir[4096];      /* the download folder, absolute */
    cml_platform layout; /* detected or forced; CML_PF_FOLDERS when it mixes layouts */
    int mixed;           /* names of several layouts: each read as its own platform
                            writes it (Canvas, Moodle), the rest by the plain rule */
    int nitems, nstudents;
    cml_item *items;     /* malloc'd, grouped by student */
    cml_student_src *students;
} cml_download;

/* The download folder of `submissions`, absolute, into dir: the folder itself, or a whole
 * download given as one archive (as Canvas and Moodle give it) unpacked into out/download/.
 * 0, or -1 with a message (not a folder or archive, or it would not unpack). */
int cml_download_open(const char *submissions, const char *out, char *dir, size_t len,
                      char *err, size_t errlen);

/* Reads the download folder dir (absolute) and finds its students: with forced AUTO the
 * layout is detected (rules in CLASS_GUIDE.md), otherwise names of the forced platform are
 * read as such and every other name by the plain rule (a folder or an archive per student;
 * other files ignored). 0, or -1 with a message (unreadable folder, no submission in it). */
int cml_download_scan(const char *dir, cml_platform forced, cml_download *d, char *err,
                      size_t errlen);
void cml_download_free(cml_download *d);

/* Gathers student s's loose files (gather 1) into dest, created afresh: the first archive
 * among them (by name) unpacked there, then every other file copied under its original name,
 * the newest of several re-uploads of one name winning. 0, or -1 with a "not graded: ..."
 * sentence in why. */
int cml_download_gather(const cml_download *d, int s, const char *dest, char *why,
                        size_t len);

/* Writes w as dir/identity.json (dir created): platform, id, name, late. 0, or -1. */
int cml_identity_save(const char *dir, const cml_identity *w);

#endif /* CML_PLATFORM_H */
