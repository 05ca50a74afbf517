! An unmodified Fortran MPI program (`use mpi`, no commpress module): allreduce (also with
! MPI_IN_PLACE), reduce, reduce_scatter_block, bcast, allgather and alltoall of double precision,
! their nonblocking forms in flight together, and an integer allreduce that must pass through. Inputs are multiples of 1/64 below 8 in magnitude,
! so sums are exact in any order. Argument "exact" or a relative bound ("1e-4").
program collectives_program
  use mpi
  implicit none
  integer, parameter :: n = 65536
  integer :: rank, nprocs, ierr, i, r, bad, total, nb, root
  double precision, allocatable :: x(:), y(:), want(:), z(:), w(:), rsb(:), ag(:), a2a(:)
  integer :: req(5)
  integer, allocatable :: ix(:), iy(:)
  double precision :: rel, allowed
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg)
  rel = 0
  if (arg /= 'exact') read (arg, *) rel
  allowed = rel * (1023d0 / 64)
  nb = n / nprocs
  allocate (x(n), y(n), want(n), ix(n), iy(n), z(n), w(n), rsb(n), ag(n), a2a(n))
  bad = 0

  do i = 1, n
    x(i) = v(rank, i)
    want(i) = 0
    do r = 0, nprocs - 1
      want(i) = want(i) + v(r, i)
    end do
  end do
  call MPI_Allreduce(x, y, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(y, want, n, allowed)
  call MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(x, want, n, allowed)
  do i = 1, n
    x(i) = v(rank, i)
  end do
  call MPI_Reduce(x, y, n, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(y, want, n, allowed)
  call MPI_Reduce_scatter_block(x, y, nb, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(y, want(rank * nb + 1:), nb, allowed)
  root = mod(1, nprocs)
  call MPI_Bcast(x, n, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
  do i = 1, n
    want(i) = v(root, i)
  end do
  call check(x, want, n, allowed)
  do i = 1, nb
    x(i) = v(rank, i)
  end do
  call MPI_Allgather(x, nb, MPI_DOUBLE_PRECISION, y, nb, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  call gathered(want)
  call check(y, want, nb * nprocs, allowed)
  ! Alltoall: block r of the result is rank r's block number `rank`.
  do i = 1, nb * nprocs
    x(i) = v(rank, i)
  end do
  call MPI_Alltoall(x, nb, MPI_DOUBLE_PRECISION, y, nb, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  call exchanged(want)
  call check(y, want, nb * nprocs, allowed)
  ! The nonblocking forms, all five in flight at once, completed by MPI_Waitall (the
  ! allreduce's and the alltoall's) and MPI_Wait (the rest) in another order than started.
  do i = 1, n
    x(i) = v(rank, i)
    z(i) = v(rank, i)
    w(i) = v(rank, i)
  end do
  call MPI_Iallreduce(x, y, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Ibcast(z, n, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Ireduce_scatter_block(w, rsb, nb, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, &
                                 req(3), ierr)
  call MPI_Iallgather(x, nb, MPI_DOUBLE_PRECISION, ag, nb, MPI_DOUBLE_PRECISION, &
                      MPI_COMM_WORLD, req(4), ierr)
  call MPI_Ialltoall(w, nb, MPI_DOUBLE_PRECISION, a2a, nb, MPI_DOUBLE_PRECISION, &
                     MPI_COMM_WORLD, req(5), ierr)
  call MPI_Wait(req(3), MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(req(2), MPI_STATUS_IGNORE, ierr)
  call MPI_Waitall(2, req(4:5), MPI_STATUSES_IGNORE, ierr)
  call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
  do i = 1, n
    want(i) = 0
    do r = 0, nprocs - 1
      want(i) = want(i) + v(r, i)
    end do
  end do
  call check(y, want, n, allowed)
  call check(rsb, want(rank * nb + 1:), nb, allowed)
  do i = 1, n
    want(i) = v(root, i)
  end do
  call check(z, want, n, allowed)
  call gathered(want)
  call check(ag, want, nb * nprocs, allowed)
  call exchanged(want)
  call check(a2a, want, nb * nprocs, allowed)
  ! Integers pass through: exact under any policy.
  do i = 1, n
    ix(i) = mod(i, 1000) + rank
  end do
  call MPI_Allreduce(ix, iy, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  do i = 1, n
    if (iy(i) /= nprocs * mod(i, 1000) + nprocs * (nprocs - 1) / 2) bad = bad + 1
  end do

  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a, i0, a)', 'ok: Fortran collectives on ', nprocs, ' ranks'
    else
      print '(a, i0, a)', 'FAIL: Fortran collectives, ', total, ' wrong elements'
    end if
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1

contains

  double precision function v(r, i)
    integer, intent(in) :: r, i
    v = dble(mod(i * 7 + r * 13, 1024)) / 64 - 8
  end function v

  ! What an allgather of every rank's first nb values delivers.
  subroutine gathered(expected)
    double precision, intent(out) :: expected(:)
    integer :: q, j
    do q = 0, nprocs - 1
      do j = 1, nb
        expected(q * nb + j) = v(q, j)
      end do
    end do
  end subroutine gathered

  ! What an alltoall delivers here: block q is rank q's block number `rank`.
  subroutine exchanged(expected)
    double precision, intent(out) :: expected(:)
    integer :: q, j
    do q = 0, nprocs - 1
      do j = 1, nb
        expected(q * nb + j) = v(q, rank * nb + j)
      end do
    end do
  end subroutine exchanged

  subroutine check(got, expected, count, tolerance)
    integer, intent(in) :: count
    double precision, intent(in) :: got(count), expected(count), tolerance
    integer :: j
    do j = 1, count
      if (.not. abs(got(j) - expected(j)) <= tolerance) bad = bad + 1
    end do
  end subroutine check

end program collectives_program
