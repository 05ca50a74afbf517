! An unmodified Fortran ScaLAPACK program: pdgemm on a block-cyclic layout (NB = 16), checked
! against the exact product (small integer entries: exact in any summation order). Built with
! -DCALL_COMMPRESS it calls commpress_pdgemm instead (the Fortran-callable entry point of
! libcommpress_scalapack.so). Prints "FAIL" and stops with status 1 on any difference.
program pdgemm_program
  use mpi
  implicit none
  integer, parameter :: m = 120, n = 110, k = 90, nb = 16
  integer :: ctx, nprow, npcol, myrow, mycol, rank, nprocs, info, ierr, bad, total
  integer :: am, ak, bk, bn, cn, lda, ldb, ldc, i, j, l, gi, gj
  integer :: desca(9), descb(9), descc(9)
  integer, external :: numroc
  double precision, allocatable :: a(:, :), b(:, :), c(:, :)
  double precision :: dot

  call blacs_pinfo(rank, nprocs)
  nprow = int(sqrt(real(nprocs)))
  do while (mod(nprocs, nprow) /= 0)
    nprow = nprow - 1
  end do
  npcol = nprocs / nprow
  call blacs_get(-1, 0, ctx)
  call blacs_gridinit(ctx, 'Row', nprow, npcol)
  call blacs_gridinfo(ctx, nprow, npcol, myrow, mycol)
  ! A is m x k, B is k x n, C is m x n.
  am = numroc(m, nb, myrow, 0, nprow)
  ak = numroc(k, nb, mycol, 0, npcol)
  bk = numroc(k, nb, myrow, 0, nprow)
  bn = numroc(n, nb, mycol, 0, npcol)
  cn = bn
  lda = max(1, am)
  ldb = max(1, bk)
  ldc = max(1, am)
  call descinit(desca, m, k, nb, nb, 0, 0, ctx, lda, info)
  call descinit(descb, k, n, nb, nb, 0, 0, ctx, ldb, info)
  call descinit(descc, m, n, nb, nb, 0, 0, ctx, ldc, info)
  allocate (a(lda, max(1, ak)), b(ldb, max(1, bn)), c(ldc, max(1, cn)))
  do j = 1, ak
    do i = 1, am
      a(i, j) = a_at(g(i, myrow, nprow), g(j, mycol, npcol))
    end do
  end do
  do j = 1, bn
    do i = 1, bk
      b(i, j) = b_at(g(i, myrow, nprow), g(j, mycol, npcol))
    end do
  end do
  c = 0
#ifdef CALL_COMMPRESS
  call commpress_pdgemm('N', 'N', m, n, k, 1d0, a, 1, 1, desca, b, 1, 1, descb, 0d0, c, 1, 1, descc)
#else
  call pdgemm('N', 'N', m, n, k, 1d0, a, 1, 1, desca, b, 1, 1, descb, 0d0, c, 1, 1, descc)
#endif
  bad = 0
  do j = 1, cn
    do i = 1, am
      gi = g(i, myrow, nprow)
      gj = g(j, mycol, npcol)
      dot = 0
      do l = 0, k - 1
        dot = dot + a_at(gi, l) * b_at(l, gj)
      end do
      if (c(i, j) /= dot) bad = bad + 1
    end do
  end do
  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a, i0, a, i0)', 'ok: Fortran pdgemm on ', nprow, ' x ', npcol
    else
      print '(a, i0, a)', 'FAIL: Fortran pdgemm, ', total, ' wrong elements'
    end if
  end if
  call blacs_gridexit(ctx)
  call blacs_exit(0)
  if (total /= 0) stop 1

contains

  ! 0-based global index of 1-based local index l in a block-cyclic distribution.
  integer function g(l, p, np)
    integer, intent(in) :: l, p, np
    g = ((l - 1) / nb) * nb * np + p * nb + mod(l - 1, nb)
  end function g

  double precision function a_at(i, j)
    integer, intent(in) :: i, j
    a_at = dble(mod(i * 3 + j * 5, 9) - 4)
  end function a_at

  double precision function b_at(i, j)
    integer, intent(in) :: i, j
    b_at = dble(mod(i * 7 + j * 2, 7) - 3)
  end function b_at

end program pdgemm_program
